//! The builders' large working tables: zeroed memory asked for on huge
//! pages. A build reads and writes its tables at random, a slot here, a
//! slot there, hundreds of megabytes apart; with 4 KiB pages nearly every
//! access misses the TLB too, and walks the page tables before it reaches
//! memory. On 2 MiB pages (Linux's transparent huge pages, asked for with
//! `madvise`, which is all this machine's kernel gives them for) a few
//! hundred entries cover a whole table. Where the system has none, the
//! table works the same on ordinary pages.

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use memmap2::{MmapMut, MmapOptions};

/// The element types a zeroed table may hold: all-zero bytes are a valid
/// value (0) of each.
///
/// # Safety
/// An implementor must be valid when all of its bytes are zero, and have
/// no alignment above a page's.
pub unsafe trait Zeroed: Sized {}

// SAFETY: plain integers, zero is 0.
unsafe impl Zeroed for u8 {}
// SAFETY: as above.
unsafe impl Zeroed for u16 {}

/// `len` zeroed elements of `T`.
pub struct Table<T: Zeroed> {
    map: Option<MmapMut>,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Zeroed> Table<T> {
    /// A table of `len` zeros, on huge pages where the system gives them.
    pub fn zeroed(len: usize) -> std::io::Result<Table<T>> {
        let bytes = len * std::mem::size_of::<T>();
        let map = if bytes == 0 {
            None
        } else {
            let map = MmapOptions::new().len(bytes).map_anon()?;
            // A hint: without huge pages the table is the same, slower.
            #[cfg(target_os = "linux")]
            let _ = map.advise(memmap2::Advice::HugePage);
            Some(map)
        };
        Ok(Table {
            map,
            len,
            _t: PhantomData,
        })
    }
}

impl<T: Zeroed> Deref for Table<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match &self.map {
            // SAFETY: the map is `len` elements long, page-aligned, zeroed
            // or written only through this table; `T: Zeroed` makes every
            // byte pattern written as `T` and the zeros valid.
            Some(m) => unsafe { std::slice::from_raw_parts(m.as_ptr().cast::<T>(), self.len) },
            None => &[],
        }
    }
}

impl<T: Zeroed> DerefMut for Table<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.map {
            // SAFETY: as for `deref`, and the exclusive borrow of the table
            // is the only one of its memory.
            Some(m) => unsafe {
                std::slice::from_raw_parts_mut(m.as_mut_ptr().cast::<T>(), self.len)
            },
            None => &mut [],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_starts_at_zero_and_keeps_what_is_written() {
        let mut t: Table<u16> = Table::zeroed(3 << 20).unwrap();
        assert_eq!(t.len(), 3 << 20);
        assert!(t.iter().all(|&x| x == 0));
        t[12345] = 7;
        t[(3 << 20) - 1] = 9;
        assert_eq!((t[12345], t[(3 << 20) - 1], t[0]), (7, 9, 0));
        let empty: Table<u8> = Table::zeroed(0).unwrap();
        assert!(empty.is_empty());
    }
}
