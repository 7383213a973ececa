//! The endgame databases in `mulino gui`: `--tb DIR` opens them once for
//! the whole server ([`open`]); the page then shows the exact value and
//! distance of every database position ([`probe`]), and each tab's engine
//! plays from them (its `TablebasePath` is set to the same directory).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::core::{Move, Position, Rules};
use crate::tb::probe::Tablebases;
use crate::tb::{TbRules, Value};

/// The databases the server was started with, if any.
static TABLES: OnceLock<(PathBuf, Tablebases)> = OnceLock::new();

/// Opens the databases in `dir` (for the standard rules, the only ones
/// built) for every session; files are read only when probed. Returns how
/// many tables can serve and what is wrong with the others, or why none
/// can.
pub fn open(dir: &Path) -> Result<(usize, Vec<String>), String> {
    let rules = TbRules::from_rules(&Rules::default()).map_err(|e| e.to_string())?;
    let tables = Tablebases::new(dir, rules);
    let (found, problems) = tables.open_all();
    if found == 0 {
        return Err(problems.join("; "));
    }
    let _ = TABLES.set((dir.to_path_buf(), tables));
    Ok((found, problems))
}

/// The directory the databases came from, for each tab's engine.
pub fn dir() -> Option<&'static Path> {
    TABLES.get().map(|(dir, _)| dir.as_path())
}

/// What the databases know about a position, side to move's view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TbAnswer {
    /// `"win"`, `"draw"` or `"loss"`.
    pub result: &'static str,
    /// Plies to the end of the game with best play (none for a draw).
    pub plies: Option<u32>,
}

impl From<Value> for TbAnswer {
    fn from(value: Value) -> TbAnswer {
        let (result, plies) = match value {
            Value::Win(d) => ("win", Some(d.into())),
            Value::Loss(d) => ("loss", Some(d.into())),
            Value::Draw => ("draw", None),
        };
        TbAnswer { result, plies }
    }
}

/// The databases' value of `pos`, when they are open, fit `rules` and
/// hold its subspace (both hands empty).
fn value(pos: &Position, rules: &Rules) -> Option<Value> {
    let (_, tables) = TABLES.get()?;
    if !tables.fits(rules) {
        return None;
    }
    tables.probe(pos)
}

/// The databases' verdict on `pos`, side to move's view.
pub fn probe(pos: &Position, rules: &Rules) -> Option<TbAnswer> {
    value(pos, rules).map(TbAnswer::from)
}

/// Each legal move's value for the side that plays it, best first, when
/// the databases hold the position and its successors.
pub fn move_values(pos: &Position, rules: &Rules, legal: &[Move]) -> Vec<(Move, TbAnswer)> {
    if value(pos, rules).is_none() {
        return Vec::new();
    }
    let mut values: Vec<(Move, Value)> = legal
        .iter()
        .filter_map(|&m| {
            let child = pos.play_unchecked(rules, m);
            // A move that ends the game wins it (no draw ends a turn here).
            if child.outcome(rules).is_some() {
                return Some((m, Value::Win(1)));
            }
            Some((m, value(&child, rules)?.one_ply_back()))
        })
        .collect();
    // Wins first, the shortest first; then draws; then losses, the longest first.
    values.sort_by_key(|&(_, v)| match v {
        Value::Win(d) => (0, i32::from(d)),
        Value::Draw => (1, 0),
        Value::Loss(d) => (2, -i32::from(d)),
    });
    values
        .into_iter()
        .map(|(m, v)| (m, TbAnswer::from(v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tb::build::{Options, build_pair};

    #[test]
    fn the_page_gets_the_databases_values() {
        let dir = std::env::temp_dir().join(format!("mulino-gui-tb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // An empty directory serves nothing, and says so.
        assert!(open(&dir).is_err());
        let opts = Options {
            dir: dir.clone(),
            threads: 1,
            memory: 1 << 30,
        };
        let rules = Rules::default();
        build_pair(TbRules::from_rules(&rules).unwrap(), 3, 3, &opts, &|_| {}).unwrap();
        let (found, problems) = open(&dir).unwrap();
        assert_eq!((found, problems.len()), (1, 0));
        assert_eq!(super::dir(), Some(dir.as_path()));
        // White to move closes a mill that leaves Black two pieces.
        let fen = "@*@**@**/*****O**/OO****** w m s 3 0 3 0 0 0 0 0 0 0 0 0 1";
        let pos = Position::from_fen(fen, &rules).unwrap();
        let win = TbAnswer {
            result: "win",
            plies: Some(1),
        };
        assert_eq!(probe(&pos, &rules), Some(win.clone()));
        // Every move valued, the winning removals first.
        let mut list = crate::core::MoveList::new();
        pos.legal_moves(&rules, &mut list);
        let values = move_values(&pos, &rules, &list);
        assert_eq!(values.len(), list.len());
        assert_eq!(values[0].0.to_string(), "b2-a7xd5");
        assert_eq!(values[0].1, win);
        assert!(values.iter().any(|(_, a)| a.result == "loss"));
        let black = Position::from_fen(&fen.replace(" w ", " b "), &rules).unwrap();
        assert_eq!(probe(&black, &rules).map(|a| a.result), Some("loss"));
        // Other rules, or a subspace not built: nothing.
        let no_fly = Rules {
            flying: false,
            ..rules
        };
        assert_eq!(probe(&pos, &no_fly), None);
        assert_eq!(probe(&Position::startpos(&rules), &rules), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
