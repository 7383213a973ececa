//! What the fuzz targets share: the rule sets they try, the checks every
//! parsed position must pass, and a scratch directory for the parsers that
//! read files.

use std::path::PathBuf;

use mulino::core::{FullBoardAction, MoveList, PlacingMill, Position, Rules, Variant};

/// Every preset's rules.
pub fn variants() -> impl Iterator<Item = (Variant, Rules)> {
    Variant::ALL.into_iter().map(|v| (v, v.rules()))
}

/// A rule set with every knob in its range (as `setoption` allows any
/// combination), from two bytes of the input.
pub fn knob_rules(a: u8, b: u8) -> Rules {
    let bit = |byte: u8, i: u32| byte >> i & 1 == 1;
    Rules {
        pieces: 9 + (a & 3),
        flying: bit(a, 2),
        fly_at: 3 + (a >> 3 & 1),
        diagonals: bit(a, 4),
        remove_from_mills_always: bit(a, 5),
        remove_multiple: bit(a, 6),
        move_in_placing: bit(a, 7),
        one_time_mills: bit(b, 0),
        threefold: bit(b, 1),
        full_board: FullBoardAction::ALL[(b >> 2 & 3) as usize],
        placing_mill: PlacingMill::ALL[(b >> 4 & 3) as usize],
        defender_moves_first: bit(b, 6),
        blocked_removes: bit(b, 7),
        ..Rules::default()
    }
}

/// The rule sets a text is tried under: every preset, and where the input
/// has a line after the text, one more from that line's first two bytes.
/// Returns the text before that line.
pub fn text_and_rules(data: &[u8]) -> (String, Vec<Rules>) {
    let (text, knobs) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let mut rules: Vec<Rules> = variants().map(|(_, r)| r).collect();
    if let Some(&[a, b, ..]) = knobs {
        rules.push(knob_rules(a, b));
    }
    (String::from_utf8_lossy(text).into_owned(), rules)
}

/// What must hold for any position the rules core accepted (from a FEN,
/// an opening, a game): its FEN reads back to it, its moves agree with
/// every other way of asking for them, and each plays.
pub fn check_position(pos: &Position, rules: &Rules) {
    let fen = pos.fen(rules);
    let back = Position::from_fen(&fen, rules)
        .unwrap_or_else(|e| panic!("the FEN it writes, {fen:?}, does not read back: {e}"));
    if pos.outcome(rules).is_none() {
        assert_eq!(back, *pos, "{fen:?} reads back to another position");
    } else {
        // A finished game's FEN (phase `o`) cannot say whether the
        // removals it still owes were earned by a placement, which only
        // a move after them would use, and none comes: it reads back to
        // the same key (every other field) and the same result.
        assert_eq!(back.key(), pos.key(), "{fen:?} reads back to another key");
        assert_eq!(back.outcome(rules), pos.outcome(rules));
        assert_eq!(
            (back.rule50(), back.fullmove()),
            (pos.rule50(), pos.fullmove())
        );
    }
    assert_eq!(back.fen(rules), fen, "{fen:?} writes back differently");
    let mut list = MoveList::new();
    pos.legal_moves(rules, &mut list);
    assert_eq!(
        pos.count_moves(rules),
        list.len() as u64,
        "count_moves differs from the generator in {fen:?}"
    );
    assert_eq!(
        pos.has_several_moves(rules),
        list.len() >= 2,
        "has_several_moves differs from the generator in {fen:?}"
    );
    if pos.outcome(rules).is_none() {
        assert!(!list.is_empty(), "{fen:?} is not over but has no move");
    }
    let mut mills = MoveList::new();
    pos.mill_moves(rules, &mut mills);
    for m in mills.iter() {
        assert!(list.contains(*m), "mill move {m} of {fen:?} is not legal");
    }
    for &m in list.iter() {
        let text = m.to_string();
        assert_eq!(text.parse(), Ok(m), "{m} does not read back");
        assert!(
            pos.is_legal(rules, m),
            "generated {m} is not legal in {fen:?}"
        );
        assert_eq!(pos.find_legal(rules, m), Some(m));
        let played = pos
            .play(rules, m)
            .unwrap_or_else(|e| panic!("generated {m} does not play in {fen:?}: {e}"));
        assert_eq!(
            played,
            pos.play_unchecked(rules, m),
            "{m} in {fen:?}: checked and unchecked play differ"
        );
    }
}

/// A directory of this process's own for files the parsers read, emptied
/// (`$TMPDIR/mulino-fuzz-NAME-PID`; it stays when the process ends).
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mulino-fuzz-{name}-{}", std::process::id()));
    match std::fs::read_dir(&dir) {
        Ok(entries) => {
            for entry in entries.flatten() {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        Err(_) => std::fs::create_dir_all(&dir).expect("a scratch directory"),
    }
    dir
}
