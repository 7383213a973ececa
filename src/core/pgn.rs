//! Reading PGN: the games of a file as `mulino match --pgn` writes them
//! (and as other Mill programs write PGN): their tag pairs, their moves
//! in the World Mill Federation's notation with the comment after each,
//! and their result. Text only: replaying the moves is the caller's
//! (`Move`'s parser and `Game`). The one reader for the match runner, the
//! tuner, the tests and the scripts (`mulino pgn`).

/// One game of a PGN file.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PgnGame {
    /// The tag pairs in file order, `\"` and `\\` unescaped.
    pub tags: Vec<(String, String)>,
    pub moves: Vec<PgnMove>,
    /// The game termination marker (`1-0`, `0-1`, `1/2-1/2` or `*`), if
    /// the movetext has one.
    pub result: Option<String>,
}

/// One move of the movetext, with the comment that follows it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PgnMove {
    /// As written: `d6`, `d6-d5`, `d6-d5xb4`.
    pub text: String,
    /// The comments after the move, in order: the text between the braces
    /// (`book`, `+0.35/12 0.101s`) or after a `;`, its spaces collapsed.
    pub comments: Vec<String>,
}

impl PgnGame {
    /// A tag's value.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// White's score by the `Result` tag (1, 0.5 or 0), if the game has
    /// ended.
    pub fn white_score(&self) -> Option<f64> {
        match self.tag("Result")? {
            "1-0" => Some(1.0),
            "1/2-1/2" => Some(0.5),
            "0-1" => Some(0.0),
            _ => None,
        }
    }

    /// The moves' texts, in order.
    pub fn move_texts(&self) -> impl Iterator<Item = &str> {
        self.moves.iter().map(|m| m.text.as_str())
    }
}

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// Splits PGN text into games: tag pairs, then the movetext. A tag line
/// after movetext starts the next game. Comments (`{...}`, and `;` to the
/// end of the line) attach to the move before them; move numbers (`12.`,
/// `12...`, the `12.` of `12.d6`) are dropped. Nothing is refused: a line
/// that is not a well-formed tag pair is ignored, so a damaged game reads
/// as far as it goes.
pub fn read(text: &str) -> Vec<PgnGame> {
    let mut games = Vec::new();
    let mut game = PgnGame::default();
    // Whether the game in hand has movetext (a tag then starts another).
    let mut body = false;
    let mut comment: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if comment.is_none() && trimmed.starts_with('[') {
            if body {
                games.push(std::mem::take(&mut game));
                body = false;
            }
            if let Some(pair) = tag_pair(trimmed) {
                game.tags.push(pair);
            }
            continue;
        }
        let mut word = String::new();
        let mut chars = line.chars().chain([' ']);
        while let Some(ch) = chars.next() {
            match (&mut comment, ch) {
                (Some(text), '}') => {
                    let text = std::mem::take(text);
                    comment = None;
                    attach(&mut game, text.trim());
                }
                (Some(text), c) => text.push(c),
                (None, '{') => {
                    body |= end_word(&mut game, &mut word);
                    comment = Some(String::new());
                }
                (None, ';') => {
                    body |= end_word(&mut game, &mut word);
                    let rest: String = chars.by_ref().collect();
                    attach(&mut game, rest.trim());
                }
                (None, c) if c.is_whitespace() => body |= end_word(&mut game, &mut word),
                (None, c) => word.push(c),
            }
        }
        if let Some(text) = &mut comment {
            text.push(' ');
        }
    }
    if body || !game.tags.is_empty() {
        games.push(game);
    }
    games
}

/// Takes the word in hand as a move or a result; whether there was one.
fn end_word(game: &mut PgnGame, word: &mut String) -> bool {
    if word.is_empty() {
        return false;
    }
    if RESULTS.contains(&word.as_str()) {
        game.result = Some(std::mem::take(word));
        return true;
    }
    // A point's name never starts with a digit: what does is a number.
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    if !rest.is_empty() {
        game.moves.push(PgnMove {
            text: rest.to_string(),
            comments: Vec::new(),
        });
    }
    word.clear();
    true
}

/// Adds a comment to the last move's (a comment before the first move is
/// dropped).
fn attach(game: &mut PgnGame, text: &str) {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(m) = game.moves.last_mut() {
        m.comments.push(text);
    }
}

/// `[Name "value"]` with `\"` and `\\` unescaped.
fn tag_pair(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (name, rest) = inner.split_once(' ')?;
    let quoted = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut escaped = false;
    for c in quoted.chars() {
        if escaped || c != '\\' {
            value.push(c);
            escaped = false;
        } else {
            escaped = true;
        }
    }
    Some((name.to_string(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_tags_moves_comments_and_results() {
        let text = "[Event \"m\"]\n[White \"a \\\"b\\\" \\\\\"]\n[Result \"1-0\"]\n\n\
                    1. d6 {book} a1 {+0.35/12 0.101s} 2. d5 a4\n3. d7xa4 {mill\n over two lines} {white wins} 1-0\n\n\
                    [Event \"n\"]\n\n1.d6 ; to the end of the line\n1... a1 *\n";
        let games = read(text);
        assert_eq!(games.len(), 2);
        let g = &games[0];
        assert_eq!(g.tag("White"), Some("a \"b\" \\"));
        assert_eq!(g.white_score(), Some(1.0));
        assert_eq!(
            g.move_texts().collect::<Vec<_>>(),
            ["d6", "a1", "d5", "a4", "d7xa4"]
        );
        assert_eq!(g.moves[0].comments, ["book"]);
        assert_eq!(g.moves[1].comments, ["+0.35/12 0.101s"]);
        assert!(g.moves[2].comments.is_empty());
        assert_eq!(g.moves[4].comments, ["mill over two lines", "white wins"]);
        assert_eq!(g.result.as_deref(), Some("1-0"));
        let h = &games[1];
        assert_eq!(h.move_texts().collect::<Vec<_>>(), ["d6", "a1"]);
        assert_eq!(h.moves[0].comments, ["to the end of the line"]);
        assert_eq!((h.result.as_deref(), h.white_score()), (Some("*"), None));
        let tagged = |result: &str| PgnGame {
            tags: vec![("Result".to_string(), result.to_string())],
            ..PgnGame::default()
        };
        assert_eq!(tagged("0-1").white_score(), Some(0.0));
        assert_eq!(tagged("1/2-1/2").white_score(), Some(0.5));
        assert_eq!(PgnGame::default().white_score(), None);
    }

    #[test]
    fn damaged_text_reads_as_far_as_it_goes() {
        assert_eq!(read(""), Vec::new());
        let games = read("[Event \"x\"\n[Bad]\n1. d6 {never closed\n");
        assert_eq!(games.len(), 1);
        assert!(games[0].tags.is_empty());
        assert_eq!(games[0].move_texts().collect::<Vec<_>>(), ["d6"]);
        assert!(games[0].moves[0].comments.is_empty());
        // Only movetext: one game without tags.
        let games = read("d6 a1 1/2-1/2");
        assert_eq!(games[0].moves.len(), 2);
        assert_eq!(games[0].result.as_deref(), Some("1/2-1/2"));
    }
}
