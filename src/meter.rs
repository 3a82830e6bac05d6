//! The allocation meter: a global allocator (the system's, counted) that keeps, for each
//! thread, the bytes it has allocated and not freed. The `gamesman` binary installs it; a
//! script call reads it to stop a script whose values outgrow the memory budget, which Rhai's
//! own size limits miss (`m[k] = a` checks `a`, not `m`: a map of 60,000 copies of a large
//! array passes them). Where it is not installed (a program using the library with its own
//! allocator), [`net`] stays 0 and scripts are held by Rhai's size limits alone.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static NET: Cell<isize> = const { Cell::new(0) };
}

fn add(n: isize) {
    // `try_with`: a thread being torn down has no counter any more.
    let _ = NET.try_with(|c| c.set(c.get().wrapping_add(n)));
}

/// Bytes this thread has allocated and not freed (memory freed by another thread counts
/// there), since it started; 0 when the meter is not installed.
pub fn net() -> isize {
    NET.try_with(|c| c.get()).unwrap_or(0)
}

/// The system allocator, counted per thread (see the module).
pub struct Meter;

// SAFETY: every call is passed to `System` unchanged; the counting touches only a
// thread-local `Cell` (const-initialized, no destructor: it never allocates).
unsafe impl GlobalAlloc for Meter {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as `alloc`.
        unsafe { System.dealloc(ptr, layout) };
        add(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            add(new_size as isize - layout.size() as isize);
        }
        p
    }
}

/// The bytes of this process's memory that are in RAM now (its resident set), where the
/// system tells it (Linux: `/proc/self/statm`); `None` elsewhere.
pub fn resident_bytes() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf reads a setting of the system and touches nothing.
    #[cfg(unix)]
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
    #[cfg(not(unix))]
    let page = 4096;
    pages.checked_mul(page)
}
