//! The database files: `Header::parse` on any bytes (a header it reads
//! must write back, `to_bytes`, to one it reads the same), then the bytes
//! as a file under every name the engine would open them by, for the
//! subspace, layer and limits the header names: opened as each kind, its
//! checksum checked, and probed through `Tablebases` as play probes. Every
//! step returns a value or an error, never panics.
//!
//! A file whose header reads is tried twice: as given, and padded (its
//! body repeated) to the length the header claims, if under 2 MiB, so that
//! the fuzzer reaches the tables that open (the placing layers of the
//! first few placements, the 3-piece subspaces) and their probes.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use mulino::core::{Bitboard, Point, Rules};
use mulino::tb::format::{HEADER_LEN, Header, Kind, dtz_file_name, file_name_of, wdz_file_name};
use mulino::tb::index::Subspace;
use mulino::tb::mapped::MappedTable;
use mulino::tb::placing::{self, LAYERS, Layer, PlacingLoaded};
use mulino::tb::probe::Tablebases;
use mulino::tb::{NMoveLimits, TbRules};

/// The most bytes a padded file may have.
const MAX_PADDED: u64 = 2 << 20;

/// `own` points then `opp` others, picked in an order `seed` sets.
fn sets(seed: u8, own: u8, opp: u8) -> (Bitboard, Bitboard) {
    const STRIDES: [usize; 4] = [1, 5, 7, 11];
    let stride = STRIDES[(seed >> 5) as usize % 4];
    let first = seed as usize % 24;
    let mut order = (0..24).map(|i| Point::ALL[(first + i * stride) % 24]);
    let mut take = |n: u8| {
        (&mut order)
            .take(n as usize)
            .fold(Bitboard::EMPTY, |b, p| b.with(p))
    };
    let own = take(own);
    (own, take(opp))
}

/// The body length the header asks for, if it names a table at all.
fn claimed_len(h: &Header, k: u8) -> Option<u64> {
    match h.kind {
        Kind::Placing => (k < LAYERS && (3..=placing::PIECES).contains(&h.max))
            .then(|| Layer { k, max: h.max }.slots().div_ceil(4)),
        _ => Subspace::new(h.own, h.opp).map(|s| s.len()),
    }
}

fn try_file(bytes: &[u8], h: Option<&Header>, seeds: &[u8]) {
    let (own, opp, k, limits) = match h {
        Some(h) => (h.own, h.opp, h.layer, h.limits),
        None => (3, 3, 0, NMoveLimits::NONE),
    };
    let default = TbRules::from_rules(&Rules::default()).expect("the standard rules");
    // The engine opens a table only for rules it plays.
    let rules = h
        .map(|h| h.rules)
        .filter(|r| matches!(r.fly_at, 3 | 4))
        .unwrap_or(default);
    let dir = &mulino_fuzz::scratch_dir("tb");
    let data = dir.join("data");
    std::fs::write(&data, bytes).expect("the file is written");
    let mut names = vec![
        file_name_of(Kind::ToEnd, own, opp),
        dtz_file_name(own, opp, NMoveLimits::NONE),
    ];
    if limits != NMoveLimits::NONE {
        names.push(dtz_file_name(own, opp, limits));
        names.push(wdz_file_name(own, opp, limits));
    }
    if k < LAYERS {
        names.push(placing::file_name(k));
    }
    for name in &names {
        let _ = std::fs::hard_link(&data, dir.join(name));
    }

    let mut opened = vec![
        MappedTable::open_kind(dir, Kind::ToEnd, own, opp, rules),
        MappedTable::open_kind(dir, Kind::ToRemoval, own, opp, rules),
        MappedTable::open_dtz(dir, own, opp, rules, limits),
    ];
    if limits != NMoveLimits::NONE {
        opened.push(MappedTable::open_wdz(dir, own, opp, rules, limits));
    }
    if k < LAYERS {
        opened.push(placing::open_any_layer(dir, rules, k));
        if let Ok(layer) = PlacingLoaded::open(dir, rules, k) {
            for s in &layer.sectors {
                for &seed in seeds {
                    let (a, b) = sets(seed, s.own, s.opp);
                    assert!(layer.code(a, b).is_some(), "a sector's own position");
                }
            }
        }
    }
    for table in opened.iter().flatten() {
        let _ = table.verify_checksum();
        assert_eq!(
            table.slots().len() as u64 + HEADER_LEN as u64,
            bytes.len() as u64
        );
    }

    let game_rules = rules.game_rules();
    let tables = Tablebases::under(dir, rules, limits);
    if Subspace::new(own, opp).is_some() {
        for &seed in seeds {
            let (a, b) = sets(seed, own, opp);
            if let Some(pos) = rules.position(a, b) {
                let _ = tables.probe(&pos);
                let _ = tables.value(&pos);
            }
        }
    }
    if k < LAYERS {
        let layer = Layer::full(k);
        for s in layer.sectors() {
            let (a, b) = sets(seeds[0], s.own, s.opp);
            if let Some(pos) = layer.position(&game_rules, a, b) {
                let _ = tables.value(&pos);
            }
        }
    }
    let _ = tables.open_all();
    let _ = Tablebases::under(dir, rules, limits).check_all();
}

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.tb");
    let header = Header::parse(path, data).ok();
    if let Some(h) = &header {
        let again = Header::parse(path, &h.to_bytes()).expect("a written header reads");
        assert_eq!(&again, h);
    }
    // A few bytes past the header choose the probed positions.
    let seeds: Vec<u8> = data.iter().skip(HEADER_LEN).take(4).copied().collect();
    let seeds = if seeds.is_empty() { vec![0] } else { seeds };
    try_file(data, header.as_ref(), &seeds);
    if let Some(h) = &header {
        let body = &data[HEADER_LEN..];
        let len = claimed_len(h, h.layer).filter(|&n| n <= MAX_PADDED);
        if let Some(len) = len.filter(|&n| n != body.len() as u64) {
            let mut padded = data[..HEADER_LEN].to_vec();
            let filler = if body.is_empty() { &[0u8][..] } else { body };
            padded.extend(filler.iter().cycle().take(len as usize));
            try_file(&padded, header.as_ref(), &seeds);
        }
    }
});
