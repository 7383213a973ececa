//! The packed databases' reader: the manifest and an index region parsed
//! from any bytes, and a whole pack whose manifest, index and one block
//! the input gives (their checksums made to match, so that the block is
//! decoded and its positions probed, stored and derived). Every step
//! returns a value, `None` or an error, never panics.

#![no_main]

use std::collections::HashMap;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use mulino::core::{Bitboard, Point, Rules};
use mulino::tb::TbRules;
use mulino::tb::pack::format::{
    self, FORMAT, Index, LimitsEntry, MAX_FILE_BYTES, Manifest, Region, RulesEntry, Stored,
    TableEntry, VERSION,
};
use mulino::tb::pack::layout::Layout;
use mulino::tb::pack::{PackSource, Packed, TableId};

/// A pack in memory.
struct Memory(HashMap<String, Vec<u8>>);

impl PackSource for Memory {
    fn read(&self, name: &str, offset: u64, len: Option<u64>) -> Result<Option<Vec<u8>>, String> {
        let file = self.0.get(name).ok_or("no such file")?;
        let start = (offset as usize).min(file.len());
        let end = len.map_or(file.len(), |n| (start + n as usize).min(file.len()));
        Ok(Some(file[start..end].to_vec()))
    }

    fn describe(&self) -> String {
        "memory".into()
    }
}

/// A position of `own` to move against `opp` pieces, from a seed.
fn sets(seed: u8, own: u8, opp: u8) -> (Bitboard, Bitboard) {
    let first = seed as usize % 24;
    let mut order = (0..24).map(|i| Point::ALL[(first + i * 5) % 24]);
    let mut take = |n: u8| (&mut order).take(n as usize).fold(Bitboard::EMPTY, |b, p| b.with(p));
    let own = take(own);
    (own, take(opp))
}

fuzz_target!(|data: &[u8]| {
    let _ = Manifest::parse(data);
    if let Ok(index) = Index::parse(data) {
        let stored = Stored {
            slots: 0,
            blocks: index.blocks.len() as u64,
            index: Region { offset: 0, len: 0, sha256: String::new() },
            first_file: 0,
            first_offset: 0,
        };
        let _ = index.locations(&stored, MAX_FILE_BYTES);
    }
    if data.len() < 3 {
        return;
    }
    // A pack of one stored table (3-3, 4-3 or placing layer 3), and the
    // derived twin 3-4 where 4-3 is stored; its one block the input.
    let (pick, seed, block) = (data[0] % 3, data[1], &data[2..]);
    let stored_id = match pick {
        0 => TableId::Moving { own: 3, opp: 3 },
        1 => TableId::Moving { own: 4, opp: 3 },
        _ => TableId::Placing { k: 3, max: 9 },
    };
    let layout = Layout::of(stored_id);
    let block_slots = layout.slots.max(1);
    let mut priors = mulino::tb::pack::model::Priors::even();
    let n = priors.wdl.len();
    for (i, b) in block.iter().take(64).enumerate() {
        priors.wdl[i * 97 % n] = *b;
    }
    let index = Index {
        priors,
        blocks: vec![format::BlockEntry { len: block.len() as u32, hash: format::block_hash(block) }],
    };
    let index_bytes = index.to_bytes();
    let mut tables = vec![TableEntry {
        name: stored_id.name(),
        stored: Some(Stored {
            slots: layout.slots,
            blocks: 1,
            index: Region {
                offset: 0,
                len: index_bytes.len() as u64,
                sha256: format::sha256_hex(&index_bytes),
            },
            first_file: 0,
            first_offset: 0,
        }),
        counts: [0; 3],
    }];
    if pick == 1 {
        tables.push(TableEntry { name: "3-4".into(), stored: None, counts: [0; 3] });
        tables.push(TableEntry { name: "3-3".into(), stored: None, counts: [0; 3] });
    }
    let rules = TbRules::from_rules(&Rules::default()).expect("the standard rules");
    let manifest = Manifest {
        format: FORMAT.into(),
        version: VERSION,
        rules: RulesEntry::of(rules),
        limits: LimitsEntry { n_move: 100, endgame: 100 },
        block_slots,
        max_file_bytes: MAX_FILE_BYTES,
        tables,
        files: Vec::new(),
    };
    let manifest = serde_json::to_vec(&manifest).expect("a manifest");
    let files = HashMap::from([
        (format::INDEX.to_string(), index_bytes),
        (format::data_file(0), block.to_vec()),
    ]);
    let source: Arc<dyn PackSource> = Arc::new(Memory(files));
    let Ok(pack) = Packed::with_manifest(source, &manifest, None) else {
        return;
    };
    for s in 0..16u8 {
        let seed = seed.wrapping_add(s.wrapping_mul(37));
        match stored_id {
            TableId::Moving { own, opp } => {
                let (o, p) = sets(seed, own, opp);
                let _ = pack.moving(o, p);
                let (o, p) = sets(seed, opp, own);
                let _ = pack.moving(o, p);
            }
            TableId::Placing { k, .. } => {
                let (o, p) = sets(seed, seed % 2, 1 + seed % 2);
                let _ = pack.placing(k, o, p);
            }
        }
    }
});
