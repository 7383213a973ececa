//! The FEN reader: any text, under every preset's rules (and one rule set
//! from the knob bytes of a second line). A FEN that reads must write back
//! to the same position, and the position's moves must agree with every
//! other way of asking for them (`mulino_fuzz::check_position`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use mulino::core::{Position, Setup};

fuzz_target!(|data: &[u8]| {
    let (fen, all_rules) = mulino_fuzz::text_and_rules(data);
    let setup = Setup::parse(&fen);
    for rules in &all_rules {
        let pos = Position::from_fen(&fen, rules);
        match &setup {
            Ok(s) => assert_eq!(pos, Position::from_setup(s, rules)),
            Err(e) => assert_eq!(pos.as_ref().err(), Some(e)),
        }
        if let Ok(pos) = pos {
            mulino_fuzz::check_position(&pos, rules);
        }
    }
});
