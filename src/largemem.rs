//! Large zeroed tables on huge pages, for the search's transposition table
//! and the databases' builders alike.
//!
//! Both read and write their tables at random, a slot here, a slot there,
//! megabytes apart; with 4 KiB pages nearly every access misses the TLB
//! too, and walks the page tables before it reaches memory. On 2 MiB pages
//! (Linux's transparent huge pages, asked for with `madvise`) a few hundred
//! entries cover a whole table. A table is an anonymous mapping, aligned
//! to 2 MiB so that every page of it can be huge; where the system gives
//! no huge pages it works the same on ordinary pages.
//!
//! WebAssembly has no mappings (nor pages to speak of): there a table is
//! zeroed memory from the allocator, which grows the module's memory.

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

#[cfg(not(target_family = "wasm"))]
use memmap2::{MmapMut as Block, MmapOptions};

/// The huge-page size on x86-64 and aarch64 Linux, and so the alignment of
/// a table at least this large.
#[cfg_attr(target_family = "wasm", allow(dead_code))]
const HUGE_PAGE: usize = 2 << 20;

/// The element types a zeroed table may hold.
///
/// # Safety
/// An implementor must be valid when all of its bytes are zero, need no
/// drop, and have no alignment above a page's (4 KiB).
pub unsafe trait Zeroed: Sized {}

// SAFETY: plain integers, zero is 0.
unsafe impl Zeroed for u8 {}
// SAFETY: as above.
unsafe impl Zeroed for u16 {}
// SAFETY: as above.
unsafe impl Zeroed for u64 {}

/// `len` elements of `T`, all zero at the start.
pub struct HugeTable<T: Zeroed> {
    map: Option<Block>,
    /// Where the table starts in the mapping: the first 2 MiB boundary.
    offset: usize,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Zeroed> HugeTable<T> {
    /// A table of `len` zeros, on huge pages where the system gives them.
    /// Its pages are the kernel's zero pages until first written.
    pub fn zeroed(len: usize) -> std::io::Result<HugeTable<T>> {
        let too_large = || std::io::Error::new(std::io::ErrorKind::OutOfMemory, "table too large");
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(too_large)?;
        if bytes == 0 {
            return Ok(HugeTable {
                map: None,
                offset: 0,
                len,
                _t: PhantomData,
            });
        }
        #[cfg(target_family = "wasm")]
        return Ok(HugeTable {
            map: Some(Block::zeroed(bytes)?),
            offset: 0,
            len,
            _t: PhantomData,
        });
        // A mapping is only page-aligned: map one huge page more and start
        // at the first huge-page boundary in it.
        #[cfg(not(target_family = "wasm"))]
        let slack = if bytes >= HUGE_PAGE { HUGE_PAGE } else { 0 };
        #[cfg(not(target_family = "wasm"))]
        let map = MmapOptions::new()
            .len(bytes.checked_add(slack).ok_or_else(too_large)?)
            .map_anon()?;
        #[cfg(not(target_family = "wasm"))]
        let offset = map.as_ptr().align_offset(HUGE_PAGE).min(slack);
        // A hint: without huge pages the table is the same, slower.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        #[cfg(not(target_family = "wasm"))]
        Ok(HugeTable {
            map: Some(map),
            offset,
            len,
            _t: PhantomData,
        })
    }

    /// Writes every page once, so that the memory is had now (on huge
    /// pages where the kernel gives them), not at the first probe of a
    /// search.
    pub fn commit(&mut self) {
        // A module's memory is had when it grows.
        #[cfg(target_family = "wasm")]
        return;
        #[cfg(not(target_family = "wasm"))]
        let offset = self.offset;
        #[cfg(not(target_family = "wasm"))]
        let bytes = self.len * std::mem::size_of::<T>();
        #[cfg(not(target_family = "wasm"))]
        if let Some(map) = &mut self.map {
            for b in map[offset..offset + bytes].iter_mut().step_by(4096) {
                *b = 0;
            }
        }
    }
}

impl<T: Zeroed> Deref for HugeTable<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match &self.map {
            // SAFETY: the map holds `len` elements from `offset`, a 2 MiB
            // boundary or its start (a mapping's or a block's, both
            // page-aligned), so aligned for `T`; they are zeroed or
            // written only through this table, and `T: Zeroed` makes the
            // zeros valid.
            Some(m) => unsafe {
                std::slice::from_raw_parts(m.as_ptr().add(self.offset).cast::<T>(), self.len)
            },
            None => &[],
        }
    }
}

impl<T: Zeroed> DerefMut for HugeTable<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.map {
            // SAFETY: as for `deref`, and the exclusive borrow of the table
            // is the only one of its memory.
            Some(m) => unsafe {
                std::slice::from_raw_parts_mut(
                    m.as_mut_ptr().add(self.offset).cast::<T>(),
                    self.len,
                )
            },
            None => &mut [],
        }
    }
}

/// Zeroed memory from the allocator, page-aligned, for a table on
/// WebAssembly.
#[cfg(target_family = "wasm")]
struct Block {
    ptr: std::ptr::NonNull<u8>,
    layout: std::alloc::Layout,
}

#[cfg(target_family = "wasm")]
impl Block {
    fn zeroed(bytes: usize) -> std::io::Result<Block> {
        let too_large = || std::io::Error::new(std::io::ErrorKind::OutOfMemory, "table too large");
        let layout = std::alloc::Layout::from_size_align(bytes, 4096).map_err(|_| too_large())?;
        // Not `alloc_zeroed`: wasi-libc's calloc clears with a loop; one
        // `write_bytes` is one memory.fill (bulk memory, .cargo/config.toml),
        // some ten times faster.
        // SAFETY: the layout's size is not zero (`zeroed` returns early
        // for an empty table).
        let ptr = unsafe { std::alloc::alloc(layout) };
        let ptr = std::ptr::NonNull::new(ptr).ok_or_else(too_large)?;
        // SAFETY: `ptr` holds `bytes` bytes, just allocated.
        unsafe { ptr.as_ptr().write_bytes(0, bytes) };
        Ok(Block { ptr, layout })
    }

    fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

#[cfg(target_family = "wasm")]
impl Drop for Block {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout, freed once.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

// SAFETY: a block owns its memory alone, as a `Box<[u8]>` does; the table
// over it gives access to it only through `&`/`&mut` borrows of itself.
#[cfg(target_family = "wasm")]
unsafe impl Send for Block {}
// SAFETY: as above.
#[cfg(target_family = "wasm")]
unsafe impl Sync for Block {}

/// The memory the system can still give without swapping (Linux:
/// `MemAvailable` in /proc/meminfo), or `None` where that is not known.
pub fn available_bytes() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        let info = std::fs::read_to_string("/proc/meminfo").ok()?;
        mem_available(&info)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// `MemAvailable` of a /proc/meminfo text, in bytes.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn mem_available(meminfo: &str) -> Option<usize> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut words = line.split_whitespace().skip(1);
    let kb: usize = words.next()?.parse().ok()?;
    (words.next() == Some("kB")).then_some(())?;
    kb.checked_mul(1024)
}

/// Whether [`prefetch`] does anything here: where it does not
/// (WebAssembly has no prefetch), making a child early only to prefetch
/// its table bucket is work for nothing.
pub const PREFETCHES: bool = cfg!(target_arch = "x86_64");

/// Asks the processor to bring `r`'s cache line in (a hint; nothing
/// happens on other targets).
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint and never faults; SSE is in every
    // x86-64 target.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((r as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_starts_at_zero_and_keeps_what_is_written() {
        let mut t: HugeTable<u16> = HugeTable::zeroed(3 << 20).unwrap();
        assert_eq!(t.len(), 3 << 20);
        assert_eq!(t.as_ptr() as usize % HUGE_PAGE, 0);
        assert!(t.iter().all(|&x| x == 0));
        t[12345] = 7;
        t[(3 << 20) - 1] = 9;
        assert_eq!((t[12345], t[(3 << 20) - 1], t[0]), (7, 9, 0));
        t.commit();
        assert_eq!((t[12345], t[(3 << 20) - 1], t[0]), (7, 9, 0));
        let empty: HugeTable<u8> = HugeTable::zeroed(0).unwrap();
        assert!(empty.is_empty());
        let small: HugeTable<u64> = HugeTable::zeroed(1000).unwrap();
        assert!(small.iter().all(|&x| x == 0));
        let too_large = HugeTable::<u64>::zeroed(usize::MAX / 4).map(|t| t.len());
        assert_eq!(
            too_large.map_err(|e| e.kind()),
            Err(std::io::ErrorKind::OutOfMemory)
        );
    }

    #[test]
    fn available_memory_is_read_from_meminfo() {
        let info = "MemTotal:       24576000 kB\nMemFree:  1000 kB\nMemAvailable:   23000000 kB\n";
        assert_eq!(mem_available(info), Some(23_000_000 * 1024));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
        assert_eq!(mem_available("MemAvailable: x kB\n"), None);
        assert_eq!(mem_available("MemAvailable: 5 MB\n"), None);
        #[cfg(target_os = "linux")]
        assert!(available_bytes().is_some_and(|b| b > 0));
    }
}
