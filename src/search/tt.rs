//! The transposition table: lock-free (each entry is two relaxed atomics,
//! the key stored XORed with the data so a torn write reads as a miss),
//! shared by all search threads, replacement by depth and age, mate
//! scores stored relative to the node.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

use crate::core::Move;
use crate::largemem::{self, HugeTable, Zeroed};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact = 1,
    Lower = 2,
    Upper = 3,
}

/// What a probe finds.
#[derive(Clone, Copy, Debug)]
pub struct TtHit {
    pub mv: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// Entries per bucket; a bucket is one index and one cache line.
const BUCKET: usize = 4;

#[repr(align(64))]
struct Bucket([Slot; BUCKET]);

// SAFETY: a bucket is atomics only; all-zero is four empty slots.
unsafe impl Zeroed for Bucket {}

pub struct Tt {
    table: HugeTable<Bucket>,
    age: AtomicU8,
}

/// Data layout: bits 0..25 move, 25..41 score (i16), 41..49 depth (u8),
/// 49..51 bound, 51..57 age.
fn pack(mv: Option<Move>, score: i32, depth: i32, bound: Bound, age: u8) -> u64 {
    let m = mv.map_or(0, |m| m.raw() as u64);
    m | ((score as i16 as u16 as u64) << 25)
        | ((depth.clamp(0, 255) as u64) << 41)
        | ((bound as u64) << 49)
        | (((age & 63) as u64) << 51)
}

fn unpack(d: u64) -> Option<(TtHit, u8)> {
    let bound = match (d >> 49) & 3 {
        1 => Bound::Exact,
        2 => Bound::Lower,
        3 => Bound::Upper,
        _ => return None,
    };
    let hit = TtHit {
        mv: Move::from_raw((d & 0x1ff_ffff) as u32),
        score: ((d >> 25) & 0xffff) as u16 as i16 as i32,
        depth: ((d >> 41) & 0xff) as i32,
        bound,
    };
    Some((hit, ((d >> 51) & 63) as u8))
}

/// Why the table could not be (re)sized.
#[derive(Debug, thiserror::Error)]
pub enum TtAllocError {
    /// The allocator said no.
    #[error("cannot allocate a {0} MB hash table")]
    Failed(usize),
    /// More than the system has free: zeroing it would swap, or end the
    /// process at the hands of the kernel's out-of-memory killer.
    #[error("a {mb} MB hash table is more than the {available} MB of memory available")]
    TooLarge { mb: usize, available: usize },
}

impl Tt {
    pub fn new(mb: usize) -> Result<Tt, TtAllocError> {
        let bytes = mb
            .max(1)
            .checked_mul(1 << 20)
            .ok_or(TtAllocError::Failed(mb))?;
        if let Some(available) = largemem::available_bytes().filter(|&a| bytes > a) {
            return Err(TtAllocError::TooLarge {
                mb,
                available: available >> 20,
            });
        }
        let buckets = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let mut table = HugeTable::zeroed(buckets).map_err(|_| TtAllocError::Failed(mb))?;
        table.commit();
        Ok(Tt {
            table,
            age: AtomicU8::new(0),
        })
    }

    pub fn clear(&self) {
        for s in self.table.iter().flat_map(|b| &b.0) {
            s.check.store(0, Relaxed);
            s.data.store(0, Relaxed);
        }
        self.age.store(0, Relaxed);
    }

    /// Marks a new search (older entries become cheaper to replace).
    pub fn new_search(&self) {
        self.age
            .store(self.age.load(Relaxed).wrapping_add(1) & 63, Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &[Slot; BUCKET] {
        let table = &self.table[..];
        &table[(((key >> 32) * table.len() as u64) >> 32) as usize].0
    }

    /// Asks the CPU to start loading `key`'s bucket (a child's key, just
    /// before searching the child).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        largemem::prefetch(self.bucket(key));
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtHit> {
        for s in self.bucket(key) {
            let d = s.data.load(Relaxed);
            if s.check.load(Relaxed) ^ d == key {
                return unpack(d).map(|(h, _)| h);
            }
        }
        None
    }

    #[inline]
    pub fn store(&self, key: u64, mv: Option<Move>, score: i32, depth: i32, bound: Bound) {
        let age = self.age.load(Relaxed);
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, s) in bucket.iter().enumerate() {
            let d = s.data.load(Relaxed);
            let same = s.check.load(Relaxed) ^ d == key;
            let Some((old, old_age)) = unpack(d).filter(|_| d != 0) else {
                victim = i;
                break;
            };
            if same {
                // Keep a known move when this store has none, and a deeper
                // entry of this search unless the new one is exact.
                if depth + 2 < old.depth && bound != Bound::Exact && old_age == age {
                    return;
                }
                let mv = mv.or(old.mv);
                let d = pack(mv, score, depth, bound, age);
                s.check.store(key ^ d, Relaxed);
                s.data.store(d, Relaxed);
                return;
            }
            let stale = ((age.wrapping_sub(old_age)) & 63) as i32;
            let value = old.depth - 8 * stale;
            if value < worst {
                worst = value;
                victim = i;
            }
        }
        let d = pack(mv, score, depth, bound, age);
        bucket[victim].check.store(key ^ d, Relaxed);
        bucket[victim].data.store(d, Relaxed);
    }

    /// Permille of a sample of entries written in the current search.
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Relaxed);
        let n = (self.table.len() * BUCKET).min(1000);
        let used = self
            .table
            .iter()
            .flat_map(|b| &b.0)
            .take(n)
            .filter(|s| {
                let d = s.data.load(Relaxed);
                d != 0 && unpack(d).is_some_and(|(_, a)| a == age)
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe() {
        let tt = Tt::new(1).unwrap();
        let m: Move = "d6-d5xb4".parse().unwrap();
        tt.store(0x1234_5678_9abc_def0, Some(m), -29_990, 7, Bound::Lower);
        let hit = tt.probe(0x1234_5678_9abc_def0).unwrap();
        assert_eq!(hit.mv, Some(m));
        assert_eq!(hit.score, -29_990);
        assert_eq!(hit.depth, 7);
        assert_eq!(hit.bound, Bound::Lower);
        assert!(tt.probe(0x1234_5678_9abc_def1).is_none());
        tt.clear();
        assert!(tt.probe(0x1234_5678_9abc_def0).is_none());
    }

    #[test]
    fn hashfull_counts_this_searchs_entries() {
        let tt = Tt::new(1).unwrap();
        assert_eq!(tt.hashfull(), 0);
        let slots = tt.table.len() * BUCKET;
        let key = |i: u64| i.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        // One store per 10 slots: about a tenth full.
        for i in 0..slots as u64 / 10 {
            tt.store(key(i), None, 0, 1, Bound::Exact);
        }
        let tenth = tt.hashfull();
        assert!((50..=150).contains(&tenth), "{tenth}");
        // Four stores per slot: (nearly) full.
        for i in 0..4 * slots as u64 {
            tt.store(key(i), None, 0, 1, Bound::Exact);
        }
        let full = tt.hashfull();
        assert!(full >= 900, "{full}");
        // Entries of earlier searches do not count.
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
    }
}
