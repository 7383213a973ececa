//! Games from PGN files (as `mulino match` writes them), replayed into
//! the positions at the start of each turn.

use std::fmt;

use crate::core::{Game, Move, Position, Rules, Variant};

/// One game of a PGN file: its tags and its move tokens.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<String>,
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
}

/// Why a game was left out.
#[derive(Debug, PartialEq, Eq)]
pub enum Skip {
    /// Another rule set than the one tuned (its `Variant` tag, or rule
    /// overrides in a `Rules` tag).
    OtherRules(String),
    BadFen(String),
    /// A move that does not parse or is not legal, with its ply.
    BadMove(usize, String),
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::OtherRules(r) => write!(f, "other rules ({r})"),
            Skip::BadFen(e) => write!(f, "bad FEN: {e}"),
            Skip::BadMove(ply, m) => write!(f, "bad move {m:?} at ply {ply}"),
        }
    }
}

/// Splits PGN text into games: tag pairs, then movetext without
/// comments, move numbers and results.
pub fn parse_pgn(text: &str) -> Vec<PgnGame> {
    let mut games = Vec::new();
    let mut game = PgnGame::default();
    // Whether the game in hand has movetext (a tag then starts another).
    let mut body = false;
    let mut comment = 0usize;
    for line in text.lines() {
        let trimmed = line.trim();
        if comment == 0 && trimmed.starts_with('[') {
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
        for ch in line.chars().chain([' ']) {
            match ch {
                '{' => comment += 1,
                '}' => comment = comment.saturating_sub(1),
                _ if comment > 0 => {}
                c if c.is_whitespace() => {
                    body |= !word.is_empty();
                    if let Some(m) = move_token(&word) {
                        game.moves.push(m.to_string());
                    }
                    word.clear();
                }
                c => word.push(c),
            }
        }
    }
    if body || !game.tags.is_empty() {
        games.push(game);
    }
    games
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

/// The move in a movetext word: none in a result or a move number
/// (`12.`, `12...`), the part after the number in `12.d6` (a point's
/// name never starts with a digit).
fn move_token(word: &str) -> Option<&str> {
    if matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*") {
        return None;
    }
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    (!rest.is_empty()).then_some(rest)
}

/// Whether a game was played under `variant`'s rules (its tag, and no
/// rule overrides).
fn same_rules(game: &PgnGame, variant: Variant) -> Result<(), Skip> {
    let tagged = game.tag("Variant").unwrap_or("nine");
    if tagged != variant.name() {
        return Err(Skip::OtherRules(tagged.to_string()));
    }
    if let Some(r) = game.tag("Rules") {
        return Err(Skip::OtherRules(r.to_string()));
    }
    Ok(())
}

/// The positions at the start of each whole turn of a game (no removal
/// owed), from its start to its end.
pub fn positions(game: &PgnGame, variant: Variant, rules: &Rules) -> Result<Vec<Position>, Skip> {
    same_rules(game, variant)?;
    let start = match game.tag("FEN") {
        Some(fen) => Position::from_fen(fen, rules).map_err(|e| Skip::BadFen(e.to_string()))?,
        None => Position::startpos(rules),
    };
    let mut replay = Game::from_position(*rules, start);
    let mut out = vec![start];
    for (i, text) in game.moves.iter().enumerate() {
        let m: Move = text
            .parse()
            .map_err(|_| Skip::BadMove(i + 1, text.clone()))?;
        replay
            .play(m)
            .map_err(|_| Skip::BadMove(i + 1, text.clone()))?;
        let pos = *replay.position();
        if pos.pending_removals() == 0 {
            out.push(pos);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PGN: &str = r#"[Event "mulino match"]
[Variant "nine"]
[Result "1/2-1/2"]

1. d2 {book} a1 {book} 2. f2 {+1.01/10 0.074s} g1 {-0.07/64
0.244s} 3. d1 d3 4. b2xd3 {+0.89/10 0.073s} 1/2-1/2

[Event "mulino match"]
[Variant "twelve"]

1. d2 a1 *

[Event "x \"quoted\""]
[Variant "nine"]

1. d2 d2 *
"#;

    #[test]
    fn results_give_whites_score() {
        let game = |result: &str| PgnGame {
            tags: vec![("Result".to_string(), result.to_string())],
            moves: Vec::new(),
        };
        assert_eq!(game("1-0").white_score(), Some(1.0));
        assert_eq!(game("0-1").white_score(), Some(0.0));
        assert_eq!(game("1/2-1/2").white_score(), Some(0.5));
        assert_eq!(game("*").white_score(), None);
        assert_eq!(PgnGame::default().white_score(), None);
        assert_eq!(parse_pgn(PGN)[0].white_score(), Some(0.5));
    }

    #[test]
    fn games_split_and_keep_only_their_moves() {
        let games = parse_pgn(PGN);
        assert_eq!(games.len(), 3);
        assert_eq!(
            games[0].moves,
            ["d2", "a1", "f2", "g1", "d1", "d3", "b2xd3"]
        );
        assert_eq!(games[0].tag("Result"), Some("1/2-1/2"));
        assert_eq!(games[1].moves, ["d2", "a1"]);
        assert_eq!(games[2].tag("Event"), Some("x \"quoted\""));
        assert_eq!(move_token("12..."), None);
        assert_eq!(move_token("12.d6"), Some("d6"));
        assert_eq!(move_token("1/2-1/2"), None);
    }

    #[test]
    fn replay_gives_each_turn_and_refuses_the_rest() {
        let rules = Variant::Nine.rules();
        let games = parse_pgn(PGN);
        let p = positions(&games[0], Variant::Nine, &rules).unwrap();
        assert_eq!(p.len(), 8);
        assert_eq!(p[7].pieces(crate::core::Color::Black).count(), 2);
        assert_eq!(
            positions(&games[1], Variant::Nine, &rules),
            Err(Skip::OtherRules("twelve".into()))
        );
        assert_eq!(
            positions(&games[2], Variant::Nine, &rules),
            Err(Skip::BadMove(2, "d2".into()))
        );
    }
}
