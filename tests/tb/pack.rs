//! Packed folders: a small whole game packed, every position of every
//! table read back as its source has it (the stored tables' and the
//! derived ones'), and a damaged block or index never used.

use std::sync::{Arc, Mutex};

use mulino::tb::mapped::MappedTable;
use mulino::tb::pack::compare::compare_table;
use mulino::tb::pack::format::{MANIFEST, Manifest};
use mulino::tb::pack::read::FolderSource;
use mulino::tb::pack::write::{PackOptions, pack};
use mulino::tb::pack::{PackSource, Packed, TableId};
use mulino::tb::placing;

use crate::fixture::{limits, rules, scratch, wdz_game};

/// `wdz_game()` packed into a scratch folder, in small blocks so that
/// tables have many.
pub fn packed(name: &str) -> std::path::PathBuf {
    let out = scratch(name);
    let opts = PackOptions {
        src: wdz_game().to_path_buf(),
        out: out.clone(),
        threads: 2,
        block_slots: 4096,
    };
    let report = pack(&opts, &|_| {}).expect("packs");
    assert!(report.bytes_out < report.bytes_in, "{report:?}");
    assert!(
        report.tables.iter().any(|t| !t.stored),
        "some tables derived"
    );
    out
}

fn open(dir: &std::path::Path, told: Option<Arc<Mutex<Vec<String>>>>) -> Packed {
    let notify = told.map(|t| {
        let n: mulino::tb::pack::read::Notify =
            Arc::new(move |what: &str| t.lock().unwrap().push(what.to_string()));
        n
    });
    let source: Arc<dyn PackSource> = Arc::new(FolderSource::new(dir));
    Packed::open(source, notify).expect("opens")
}

fn source_table(id: TableId) -> MappedTable {
    match id {
        TableId::Moving { own, opp } => {
            MappedTable::open_wdz(wdz_game(), own, opp, rules(), limits(100)).unwrap()
        }
        TableId::Placing { k, max } => placing::open_layer(wdz_game(), rules(), k, max).unwrap(),
    }
}

#[test]
fn every_position_of_a_packed_game_reads_as_its_source() {
    let dir = packed("pack-whole");
    let pack = open(&dir, None);
    let manifest = Manifest::parse(&std::fs::read(dir.join(MANIFEST)).unwrap()).unwrap();
    // Every table of the source is in the pack: 4 subspaces and 18 layers.
    assert_eq!(manifest.tables.len(), 4 + 18);
    let (mut positions, mut derived) = (0, 0);
    for t in &manifest.tables {
        let id = TableId::parse(&t.name).unwrap();
        let found = compare_table(&pack, id, &source_table(id), 2, &|_| {}).unwrap();
        assert_eq!(
            (found.unknown, found.findings.mismatches),
            (0, 0),
            "{}: {:?}",
            t.name,
            found.findings.first
        );
        positions += found.positions;
        derived += t.stored.is_none() as u32;
    }
    assert!(positions > 4_000_000, "{positions}");
    // 3-4 or 4-3, and the even layers.
    assert_eq!(derived, 1 + 9, "{derived} derived tables");
}

#[test]
fn a_damaged_block_or_index_is_never_used_and_told_once() {
    let dir = packed("pack-damaged");
    let manifest = Manifest::parse(&std::fs::read(dir.join(MANIFEST)).unwrap()).unwrap();
    // The largest stored table: its first block is damaged.
    let t = manifest
        .tables
        .iter()
        .filter(|t| t.stored.is_some())
        .max_by_key(|t| t.stored.as_ref().unwrap().slots)
        .unwrap();
    let stored = t.stored.as_ref().unwrap();
    let data = dir.join(mulino::tb::pack::format::data_file(stored.first_file));
    let mut bytes = std::fs::read(&data).unwrap();
    bytes[stored.first_offset as usize + 3] ^= 0x40;
    std::fs::write(&data, &bytes).unwrap();
    let told = Arc::new(Mutex::new(Vec::new()));
    let pack = open(&dir, Some(Arc::clone(&told)));
    let id = TableId::parse(&t.name).unwrap();
    let found = compare_table(&pack, id, &source_table(id), 1, &|_| {}).unwrap();
    // The damaged block's positions have no value; none has a wrong one.
    assert_eq!(found.findings.mismatches, 0, "{:?}", found.findings.first);
    assert!(
        found.unknown > 0 && found.unknown < found.positions,
        "{found:?}"
    );
    let told = told.lock().unwrap().clone();
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].contains("fails its checksum"), "{told:?}");
    // A damaged index region: the table is not used at all.
    let index = dir.join(mulino::tb::pack::format::INDEX);
    let mut bytes = std::fs::read(&index).unwrap();
    bytes[stored.index.offset as usize + 5] ^= 1;
    std::fs::write(&index, &bytes).unwrap();
    let told = Arc::new(Mutex::new(Vec::new()));
    let pack = open(&dir, Some(Arc::clone(&told)));
    let found = compare_table(&pack, id, &source_table(id), 1, &|_| {}).unwrap();
    assert_eq!(found.unknown, found.positions);
    let told = told.lock().unwrap().clone();
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].contains("index"), "{told:?}");
}

#[test]
fn a_folder_with_a_manifest_is_not_packed_over() {
    let dir = packed("pack-twice");
    let opts = PackOptions {
        src: wdz_game().to_path_buf(),
        out: dir,
        threads: 1,
        block_slots: 4096,
    };
    match pack(&opts, &|_| {}) {
        Err(mulino::tb::TbError::Unusable(e)) => assert!(e.contains("already holds"), "{e}"),
        other => panic!("{other:?}"),
    }
}

/// A few hundred positions of each table, drawn from its slots: the
/// moving phase at counters from 0 to 99, and the placing layers.
fn sample_positions() -> Vec<mulino::core::Position> {
    use mulino::tb::pack::layout::Layout;
    let game = rules().game_rules();
    let mut out = Vec::new();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for (own, opp) in mulino::tb::index::plan(&[(4, 4)])
        .into_iter()
        .flat_map(|(a, b)| [(a, b), (b, a)])
    {
        let layout = Layout::of(TableId::Moving { own, opp });
        for _ in 0..300 {
            let slot = next() % layout.slots;
            layout.for_each(slot..slot + 1, |_, o, p, holds| {
                let counter = (next() % 100) as u16;
                if let Some(pos) = rules().position(o, p).filter(|_| holds) {
                    out.push(pos.with_rule50(counter));
                }
            });
        }
    }
    for k in 0..placing::LAYERS {
        let layer = placing::Layer {
            k,
            max: crate::fixture::PLACING_MAX,
        };
        let layout = Layout::of(TableId::Placing { k, max: layer.max });
        for _ in 0..100.min(layout.slots) {
            let slot = next() % layout.slots.max(1);
            layout.for_each(slot..slot + 1, |_, o, p, holds| {
                if let Some(pos) = layer.position(&game, o, p).filter(|_| holds) {
                    out.push(pos);
                }
            });
        }
    }
    out
}

/// The one root probe answers from the pack as from its source: the
/// value and every move's, the distances, the moves that keep it.
#[test]
fn root_probes_of_a_pack_equal_its_sources() {
    use mulino::tb::probe::Tablebases;
    use mulino::tb::root::probe_root;
    let dir = packed("pack-probes");
    let game = rules().game_rules();
    let from_files = Tablebases::under(wdz_game(), rules(), limits(100));
    let from_pack = Tablebases::under(&dir, rules(), limits(100));
    assert!(from_pack.pack().is_some());
    let positions = sample_positions();
    assert!(positions.len() > 1500, "{}", positions.len());
    let mut valued = 0;
    for pos in &positions {
        let (a, b) = (
            probe_root(&from_files, &game, pos),
            probe_root(&from_pack, &game, pos),
        );
        assert_eq!(a, b, "{}", pos.fen(&game));
        valued += a.value.is_some() as usize;
    }
    assert!(
        valued > positions.len() / 2,
        "{valued} of {}",
        positions.len()
    );
}

/// The engine plays from a packed folder given as its TablebasePath, and
/// `tbprobe` says what it says from the files.
#[test]
fn the_engine_takes_a_packed_folder() {
    let dir = packed("pack-engine");
    let game = rules().game_rules();
    let fens: Vec<String> = sample_positions()
        .iter()
        .step_by(97)
        .map(|p| p.fen(&game))
        .collect();
    let answers = |folder: &std::path::Path| -> Vec<Vec<String>> {
        let mut e = crate::common::Engine::spawn();
        e.send(&format!(
            "setoption name TablebasePath value {}",
            folder.display()
        ));
        e.sync();
        fens.iter()
            .map(|fen| {
                e.send(&format!("position fen {fen}"));
                e.ask("tbprobe")
            })
            .collect()
    };
    let (files, pack) = (answers(wdz_game()), answers(&dir));
    assert!(
        files.iter().any(|a| a[0].starts_with("tbprobe value win")),
        "{files:?}"
    );
    assert_eq!(files, pack);
}
