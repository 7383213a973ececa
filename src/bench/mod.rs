//! `bench`: a fixed set of positions searched to a fixed depth on one
//! thread with a fixed table size. The total node count is the search's
//! signature (commits that change search behaviour quote it as `Bench: N`).

pub mod endgames;

use std::time::{Duration, Instant};

use crate::core::{Game, Position, Variant};
use crate::engine::{Engine, EngineError};
use crate::search::Limits;

/// Depth used when `bench` is given none.
pub const DEFAULT_DEPTH: u32 = 9;
/// Table size for every bench search, in MB.
pub const HASH_MB: usize = 16;

/// Positions from Sanmill's conformance trajectories (tests/data/sanmill):
/// placing, moving, flying, pending removals, and every named variant.
pub const POSITIONS: &[(Variant, &str)] = &[
    (
        Variant::Nine,
        "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Nine,
        "******@*/******@O/******@O w p p 2 6 3 6 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Nine,
        "**O@O*@*/**@*O@@O/****@O@O w p p 6 2 7 2 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Nine,
        "**O@O*@*/*@@*O@@O/O@O*@O@O w m s 8 0 9 0 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Nine,
        "*O*@O@*@/O@@OO@**/*@O@@*OO b m s 8 0 9 0 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Nine,
        "*O@*@@@@/****O**O/O@@@*@O* w m s 5 0 9 0 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Nine,
        "O@*@@O*@/O*@*@***/*@@**@** w m s 3 0 9 0 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Nine,
        "**@***@*/O*@**@*@/@*@*O@*O b m r 3 0 8 0 0 1 0 0 0 0 0 0 1",
    ),
    (
        Variant::Nine,
        "OOO@O@**/*O@*O*O@/*@O**@@O w m s 9 0 7 0 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Twelve,
        "*****@**/O*****@O/*****O** b p p 3 9 2 10 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Twelve,
        "OO*O*@O*/O*@@@*@O/@@OO*O@@ b p p 9 2 9 3 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Twelve,
        "O*@OOOOO/O***O*@@/@@*@*@O@ b m s 9 0 8 0 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Morabaraba,
        "OOOO@OOO/**@@@@@*/@@O*@O@@ w m r 9 0 11 0 2 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Morabaraba,
        "*OOO@**O/*O**@***/@@*O@O@@ w m s 7 0 7 0 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Morabaraba,
        "*@***OO@/**O*O*@*/O@O*OO** w m s 8 0 4 0 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Russian,
        "OO*@O@**/*@@O*@@*/O@O*@O@O b m s 8 0 9 0 0 0 0 0 0 0 1077952512 0 1",
    ),
    (
        Variant::Russian,
        "@@*O@OO*/***@O@*@/*@*@***O b m s 5 0 8 0 0 0 0 0 0 0 246294647083008 0 1",
    ),
    (
        Variant::Lasker,
        "********/******@*/*******O w p p 1 9 1 9 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Lasker,
        "*O@OO@@@/***O@O*O/O@@@*@** b p p 7 1 9 1 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::Lasker,
        "O**O@@*O/*OO*@*@*/*@@@O*** b m s 6 0 7 0 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::ChengSanQi,
        "@**O***O/@@OO@@O@/*O@@OO@O b m r 9 0 9 0 0 1 0 0 0 0 0 0 1",
    ),
    (
        Variant::ChengSanQi,
        "**O**O*@/O@@@@*O@/@****@** w m s 4 0 8 0 0 0 0 0 0 0 0 0 1",
    ),
    (
        Variant::ChengSanQi,
        "*O*****@/@***O***/*@*O*@** b m s 3 0 4 0 0 0 0 0 0 0 0 0 1",
    ),
];

/// The bench's answer.
#[derive(Clone, Debug)]
pub struct BenchReport {
    pub nodes: u64,
    pub elapsed: Duration,
    pub positions: usize,
}

impl BenchReport {
    /// Nodes per second, from the time in microseconds (0 when no time
    /// could be measured).
    pub fn nps(&self) -> u64 {
        crate::search::nodes_per_second(self.nodes, self.elapsed)
    }
}

/// Runs the bench on a fresh engine (the caller's options are untouched).
pub fn run(depth: u32) -> Result<BenchReport, EngineError> {
    let mut nodes = 0;
    let mut elapsed = Duration::ZERO;
    let mut engine = Engine::new();
    engine.set_option("Hash", Some(&HASH_MB.to_string()))?;
    for (variant, fen) in POSITIONS {
        engine.set_option("Variant", Some(variant.name()))?;
        engine.new_game()?;
        engine.set_game(Game::from_text(*engine.rules(), Some(fen), [])?)?;
        let game: &Game = engine.game();
        debug_assert!(Position::from_fen(fen, game.rules()).is_ok());
        let limits = Limits {
            depth: Some(depth),
            ..Limits::reproducible()
        };
        let start = Instant::now();
        let r = engine.search_blocking(limits)?;
        elapsed += start.elapsed();
        nodes += r.nodes;
    }
    Ok(BenchReport {
        nodes,
        elapsed,
        positions: POSITIONS.len(),
    })
}
