//! The lines of openings files and books: `startpos [moves ...]` or
//! `fen <FEN> [moves ...]`, then `;`-separated fields (docs/books.md), and
//! the files read one opening a line.

use std::path::Path;

use super::{Opening, OpeningError};
use crate::core::{Game, Move, Position, Rules};

/// Parses one opening; the game must still be open at its end.
pub fn parse_opening(line: &str, rules: &Rules) -> Result<Opening, String> {
    let mut words = line.split_whitespace().peekable();
    let start = match words.next() {
        Some("startpos") => Position::startpos(rules),
        Some("fen") => {
            let mut fields = Vec::new();
            while let Some(w) = words.next_if(|w| *w != "moves") {
                fields.push(w);
            }
            Position::from_fen(&fields.join(" "), rules).map_err(|e| e.to_string())?
        }
        _ => return Err("expected `startpos` or `fen <FEN>`".into()),
    };
    let texts: Vec<&str> = match words.next() {
        None => Vec::new(),
        Some("moves") => words.collect(),
        Some(w) => return Err(format!("unexpected `{w}` (expected `moves`)")),
    };
    let played =
        Game::from_moves(*rules, start, texts.iter().copied()).map_err(|e| e.to_string())?;
    let moves = whole_turns(played.moves(), &start, rules);
    let opening = Opening {
        start,
        fen: (start != Position::startpos(rules)).then(|| start.fen(rules)),
        moves,
    };
    if let Some(outcome) = opening.game(rules).outcome() {
        return Err(format!("the game is already over ({})", outcome.describe()));
    }
    Ok(opening)
}

/// Joins removals given as separate tokens (Sanmill's `d7 xa4`) to the
/// step before them, so every move is a whole turn (`d7xa4`).
fn whole_turns(moves: &[Move], start: &Position, rules: &Rules) -> Vec<Move> {
    let mut turns: Vec<Move> = Vec::new();
    let mut pos = *start;
    let mut open_turn = false;
    for &m in moves {
        match (open_turn, turns.last_mut(), m.to()) {
            (true, Some(last), None) => {
                for r in m.removals() {
                    *last = last.with_removal(r);
                }
            }
            _ => turns.push(m),
        }
        // Checked play follows partial turns too; `Game::from_moves`
        // already accepted every move. A step that closes a mill opens a
        // turn that its removals complete; the removals owed when placing
        // ends are turns of their own.
        let before = pos;
        pos = pos.play(rules, m).unwrap_or(pos);
        open_turn = match m.to() {
            Some(_) => before.is_half_turn(rules, m),
            None => {
                open_turn
                    && pos.pending_removals() > 0
                    && pos.side_to_move() == before.side_to_move()
            }
        };
    }
    turns
}

/// One line of an openings file or book (docs/books.md): the opening,
/// then `;`-separated fields, each a key and its text. `fen` (the
/// position the moves reach, checked), `value` and `by` (the opening's
/// value and how it was established) and `check` (the self-play check's
/// games) are read; other keys are left to the tools that write them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookLine {
    pub opening: Opening,
    /// The `fen` field, as written (it matches the position reached).
    pub fen: Option<String>,
    pub value: Option<String>,
    pub by: Option<String>,
    pub check: Option<String>,
}

/// Parses one line (comment already cut off): the opening and its fields.
pub fn parse_line(line: &str, rules: &Rules) -> Result<BookLine, String> {
    let mut parts = line.split(';');
    let opening = parse_opening(parts.next().unwrap_or("").trim(), rules)?;
    let mut book = BookLine {
        opening,
        fen: None,
        value: None,
        by: None,
        check: None,
    };
    for part in parts.map(str::trim).filter(|p| !p.is_empty()) {
        let (key, text) = part
            .split_once(char::is_whitespace)
            .map_or((part, ""), |(k, t)| (k, t.trim()));
        let slot = match key {
            "fen" => &mut book.fen,
            "value" => &mut book.value,
            "by" => &mut book.by,
            "check" => &mut book.check,
            _ => continue,
        };
        if slot.is_some() {
            return Err(format!("field `{key}` given twice"));
        }
        if text.is_empty() {
            return Err(format!("field `{key}` is empty"));
        }
        *slot = Some(text.to_string());
    }
    if let Some(fen) = &book.fen {
        let stated = Position::from_fen(fen, rules).map_err(|e| format!("fen field: {e}"))?;
        let reached = book.opening.game(rules).position().fen(rules);
        if stated.fen(rules) != reached {
            return Err(format!(
                "the fen field `{fen}` is not the position the moves reach (`{reached}`)"
            ));
        }
    }
    Ok(book)
}

/// Reads an openings file or book: one opening a line with its fields,
/// `#` comments, blank lines skipped.
pub fn load_book(path: &Path, rules: &Rules) -> Result<Vec<BookLine>, OpeningError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| OpeningError::Read {
        path: name.clone(),
        source,
    })?;
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let book = parse_line(line, rules).map_err(|what| OpeningError::Line {
            path: name.clone(),
            line: i + 1,
            what,
        })?;
        lines.push(book);
    }
    if lines.is_empty() {
        return Err(OpeningError::Empty(name));
    }
    Ok(lines)
}

/// Reads an openings file: its openings, fields checked and dropped.
pub fn load(path: &Path, rules: &Rules) -> Result<Vec<Opening>, OpeningError> {
    let openings: Vec<Opening> = load_book(path, rules)?
        .into_iter()
        .map(|b| b.opening)
        .collect();
    Ok(openings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_and_removals_join_their_step() {
        let rules = Rules::default();
        let o = parse_opening("startpos moves d6 a1 d5 a4 d7 xa4", &rules).expect("valid");
        assert_eq!(o.line(), "startpos moves d6 a1 d5 a4 d7xa4");
        assert_eq!(o.fen, None);
        let fen = o.game(&rules).position().fen(&rules);
        let from_fen = parse_opening(&format!("fen {fen} moves g1"), &rules).expect("valid");
        assert_eq!(from_fen.fen.as_deref(), Some(fen.as_str()));
        assert_eq!(from_fen.moves.len(), 1);
        for bad in [
            "",
            "startpos d6",
            "startpos moves d6 d6",
            "fen x/y/z",
            "middle",
        ] {
            assert!(parse_opening(bad, &rules).is_err(), "{bad}");
        }
    }
}
