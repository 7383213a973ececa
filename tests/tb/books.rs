//! `mulino book --tb`'s generator over the small placing set: from a
//! position the databases call a draw, every opening is a line of moves
//! that each keep the draw, valued a draw, seeded, with no position
//! twice.

use std::collections::HashSet;
use std::sync::Arc;

use mulino::book::generate::canonical;
use mulino::book::{BookSpec, Method, generate};
use mulino::core::{Position, Rules, Variant};
use mulino::matches::openings::book::parse_line;
use mulino::tb::probe::Tablebases;
use mulino::tb::{NMoveLimits, Wdl};

use crate::fixture;

/// Four pieces a side in hand, none placed: in the placing set.
const START: &str = "********/********/******** w p p 0 4 0 4 0 0 0 0 0 0 0 0 6";

fn spec(tables: &Arc<Tablebases>, seed: u64) -> BookSpec {
    let rules = Rules::default();
    BookSpec {
        variant: Variant::Nine,
        start: Position::from_fen(START, &rules).unwrap(),
        start_fen: Some(START.to_string()),
        plies: 4,
        count: 6,
        seed,
        max_tries: 200,
        method: Method::Tablebases(Arc::clone(tables)),
        check: None,
    }
}

#[test]
fn a_book_from_the_databases_keeps_the_draw_at_every_move() {
    let rules = Rules::default();
    let tables = Arc::new(Tablebases::under(
        fixture::placing(),
        fixture::rules(),
        NMoveLimits::of(&rules),
    ));
    let start = Position::from_fen(START, &rules).unwrap();
    assert_eq!(tables.value(&start).and_then(|v| v.rule), Some(Wdl::Draw));
    let book = generate(&spec(&tables, 3), &mut |_| {}).expect("a book");
    assert_eq!(book.len(), 6);
    assert_eq!(book, generate(&spec(&tables, 3), &mut |_| {}).unwrap());
    let mut seen = HashSet::new();
    for entry in &book {
        let line = parse_line(&entry.line(), &rules).expect("its own line reads");
        assert_eq!(line.value.as_deref(), Some("draw"));
        assert_eq!(line.by.as_deref(), Some("tb"));
        assert_eq!(line.opening.fen.as_deref(), Some(START));
        let mut pos = start;
        for &m in &line.opening.moves {
            pos = pos.play(&rules, m).unwrap();
            assert_eq!(
                tables.value(&pos).and_then(|v| v.rule),
                Some(Wdl::Draw),
                "{}",
                entry.line()
            );
        }
        assert!(seen.insert(canonical(&pos, &rules)), "{}", entry.line());
    }
}
