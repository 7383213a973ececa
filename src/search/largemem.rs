//! A zeroed, 2 MB-aligned buffer for the transposition table. On Linux it
//! asks the kernel for transparent huge pages (`madvise(MADV_HUGEPAGE)`),
//! which turns most of the table's TLB misses into hits; elsewhere, or
//! when the kernel says no, it is an ordinary allocation.

use std::alloc::{self, Layout};
use std::marker::PhantomData;
use std::ptr::NonNull;

/// Alignment (and the huge-page size on x86-64 Linux).
const ALIGN: usize = 2 << 20;

/// Types for which all-zero bytes are a valid value.
///
/// # Safety
/// Implementors must be valid when every byte is zero and need no drop.
pub unsafe trait Zeroable: Sized {}

/// `len` values of `T`, all zero at the start, in one aligned allocation.
pub struct LargeBuffer<T: Zeroable> {
    ptr: NonNull<T>,
    len: usize,
    layout: Layout,
    _owns: PhantomData<T>,
}

// SAFETY: the buffer owns its values like a `Box<[T]>` does.
unsafe impl<T: Zeroable + Send> Send for LargeBuffer<T> {}
// SAFETY: shared access only hands out `&[T]`.
unsafe impl<T: Zeroable + Sync> Sync for LargeBuffer<T> {}

impl<T: Zeroable> LargeBuffer<T> {
    /// A buffer of `len` zeroed values, or `None` if memory is short.
    pub fn zeroed(len: usize) -> Option<LargeBuffer<T>> {
        let len = len.max(1);
        let bytes = len.checked_mul(std::mem::size_of::<T>())?.max(1);
        let align = if bytes >= ALIGN {
            ALIGN
        } else {
            std::mem::align_of::<T>()
        };
        let layout = Layout::from_size_align(bytes, align.max(std::mem::align_of::<T>())).ok()?;
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc::alloc(layout) };
        let ptr = NonNull::new(raw.cast::<T>())?;
        if bytes >= ALIGN {
            advise_huge_pages(raw, bytes);
        }
        // SAFETY: `raw` is valid for `bytes` writes; zero is a valid `T`.
        // Writing after the advice lets the kernel back it with huge pages.
        unsafe { std::ptr::write_bytes(raw, 0, bytes) };
        Some(LargeBuffer {
            ptr,
            len,
            layout,
            _owns: PhantomData,
        })
    }

    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `len` initialised (zeroed) values live at `ptr`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> Drop for LargeBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout; `T` needs no drop.
        unsafe { alloc::dealloc(self.ptr.as_ptr().cast::<u8>(), self.layout) };
    }
}

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

#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *mut u8, bytes: usize) {
    use std::ffi::{c_int, c_void};
    const MADV_HUGEPAGE: c_int = 14;
    unsafe extern "C" {
        fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
    }
    // SAFETY: the range is one allocation of ours, aligned to a page; the
    // advice changes no contents, and a failure (an old kernel, THP off)
    // only leaves ordinary pages.
    let _ = unsafe { madvise(ptr.cast::<c_void>(), bytes, MADV_HUGEPAGE) };
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_ptr: *mut u8, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    // SAFETY: integers are valid when zero.
    unsafe impl Zeroable for u64 {}

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

    #[test]
    fn buffers_are_zeroed_and_aligned() {
        for len in [1, 1000, (4 << 20) / 8] {
            let b = LargeBuffer::<u64>::zeroed(len).unwrap();
            assert_eq!(b.as_slice().len(), len);
            assert!(b.as_slice().iter().all(|&x| x == 0));
            if len * 8 >= ALIGN {
                assert_eq!(b.as_slice().as_ptr() as usize % ALIGN, 0);
            }
        }
    }
}
