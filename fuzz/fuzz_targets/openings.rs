//! The match runner's openings files: the input, written to a file, read
//! by `openings::book::load` under every preset's rules (and one rule set from
//! the knob bytes of a last line `#knobs` and two bytes). Each opening
//! read must write back (`Opening::line`) to a line that reads the same,
//! its start must pass `mulino_fuzz::check_position`, and the openings
//! must extend by seeded random plies (`for_pairs`) without panicking.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mulino::core::Rules;
use mulino::matches::openings::book::{load, parse_opening};
use mulino::matches::openings::pairs::{OpeningSource, for_pairs};

fuzz_target!(|data: &[u8]| {
    let mut all: Vec<Rules> = mulino_fuzz::variants().map(|(_, r)| r).collect();
    if let Some(i) = data.windows(7).rposition(|w| w == b"#knobs ") {
        if let [a, b, ..] = data[i + 7..] {
            all.push(mulino_fuzz::knob_rules(a, b));
        }
    }
    let dir = mulino_fuzz::scratch_dir("openings");
    let file = dir.join("openings.txt");
    std::fs::write(&file, data).expect("the file is written");
    for rules in &all {
        let Ok(openings) = load(&file, rules) else {
            continue;
        };
        for o in &openings {
            let line = o.line();
            let again = parse_opening(&line, rules)
                .unwrap_or_else(|e| panic!("{line:?}, as written, does not read: {e}"));
            assert_eq!(&again, o, "{line:?} reads back differently");
            mulino_fuzz::check_position(&o.start, rules);
            let _ = o.game(rules);
        }
        let source = OpeningSource {
            file: Some(file.clone()),
            random_plies: 2,
            shuffle: true,
        };
        let _ = for_pairs(&source, rules, data.len() as u64, 2);
    }
});
