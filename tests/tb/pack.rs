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
fn packed(name: &str) -> std::path::PathBuf {
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
