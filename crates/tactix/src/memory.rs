//! Zeroed memory for the memo table, handed out by the operating system page by page as it
//! is first touched (a small board does not pay for a large table).
//!
//! On 64-bit Linux (x86-64, AArch64) a table of 4 MiB or more is its own anonymous mapping,
//! aligned to 2 MiB and marked for transparent huge pages (`madvise(MADV_HUGEPAGE)`): each
//! probe of a large table otherwise misses the TLB as well as the cache. On the full 4×7
//! board at 256 MiB it saves about a tenth of the time.
//! Everywhere else, and if the mapping fails, it is an ordinary zeroed allocation.

/// `len` zeroed values of a type for which all-zero bytes are a valid value.
pub struct Zeroed<T: Zero> {
    backing: Backing<T>,
}

/// Types whose all-zero bit pattern is a valid value (integers and atomics of them).
///
/// # Safety
/// An implementor must be valid when every byte is zero, and have no `Drop`.
pub unsafe trait Zero: Default {}

// SAFETY: an integer of zero bytes is 0, and a cell of one is a cell of 0; no `Drop`.
unsafe impl Zero for u64 {}
unsafe impl Zero for std::cell::Cell<u64> {}

enum Backing<T> {
    Heap(Vec<T>),
    #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
    Mapped(huge::Mapping<T>),
}

impl<T: Zero> Zeroed<T> {
    /// `len` zeroed values; aborts if the memory cannot be had (see [`Zeroed::try_new`]).
    pub fn new(len: usize) -> Zeroed<T> {
        Self::try_new(len).unwrap_or_else(|| std::alloc::handle_alloc_error(std::alloc::Layout::new::<T>()))
    }

    /// `len` zeroed values, or `None` when the memory cannot be had (an address-space limit,
    /// say): the caller picks a smaller size or gives up cleanly instead of aborting.
    pub fn try_new(len: usize) -> Option<Zeroed<T>> {
        #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
        // A huge-page mapping takes 2 MiB more address space than it holds: not under a limit.
        if len.checked_mul(size_of::<T>())? >= huge::MIN_BYTES
            && address_space_left().is_none()
            && let Some(m) = huge::Mapping::new(len)
        {
            return Some(Zeroed { backing: Backing::Mapped(m) });
        }
        Some(Zeroed { backing: Backing::Heap(zeroed_vec(len)?) })
    }
}

/// A vector of `len` zeroed values from `alloc_zeroed` (calloc: pages are not touched until
/// used), or `None` when the allocation fails.
fn zeroed_vec<T: Zero>(len: usize) -> Option<Vec<T>> {
    let layout = std::alloc::Layout::array::<T>(len).ok()?;
    if layout.size() == 0 {
        return Some(std::iter::repeat_with(T::default).take(len).collect());
    }
    // SAFETY: the layout has a non-zero size.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` was allocated by the global allocator with `T`'s alignment and room for
    // `len` values (the layout `Vec<T>` uses for capacity `len`), and all-zero bytes are a
    // valid `T` (`T: Zero`).
    Some(unsafe { Vec::from_raw_parts(ptr, len, len) })
}

/// What this process may still map before its address-space limit (`ulimit -v`, `prlimit
/// --as`), on Linux; `None` where there is no such limit or it cannot be read. A budget above
/// it would end in an allocation failure, so callers shrink to it.
pub fn address_space_left() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        #[repr(C)]
        struct RLimit {
            cur: std::ffi::c_ulong,
            max: std::ffi::c_ulong,
        }
        unsafe extern "C" {
            fn getrlimit(resource: i32, rlim: *mut RLimit) -> i32;
        }
        // RLIMIT_AS is 6 on MIPS and 9 on the other Linux architectures.
        const RLIMIT_AS: i32 = if cfg!(any(target_arch = "mips", target_arch = "mips64")) { 6 } else { 9 };
        let mut lim = RLimit { cur: 0, max: 0 };
        // SAFETY: getrlimit writes one struct rlimit, which `lim` is.
        if unsafe { getrlimit(RLIMIT_AS, &mut lim) } != 0 {
            return None;
        }
        let limit = usize::try_from(lim.cur).ok()?;
        if lim.cur == std::ffi::c_ulong::MAX || limit == usize::MAX {
            return None;
        }
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let vm_kb: usize = status
            .lines()
            .find_map(|l| l.strip_prefix("VmSize:"))?
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(limit.saturating_sub(vm_kb.saturating_mul(1024)))
    }
    #[cfg(not(target_os = "linux"))]
    None
}

impl<T: Zero> std::ops::Deref for Zeroed<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match &self.backing {
            Backing::Heap(v) => v,
            #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
            Backing::Mapped(m) => m.as_slice(),
        }
    }
}

#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
mod huge {
    use super::Zero;
    use std::marker::PhantomData;

    /// Below this a table gains nothing from huge pages (it fits the TLB's reach anyway).
    pub const MIN_BYTES: usize = 4 << 20;
    const HUGE_PAGE: usize = 2 << 20;
    // The same values on x86-64 and AArch64 Linux.
    const PROT_READ_WRITE: i32 = 0x1 | 0x2;
    const MAP_PRIVATE_ANONYMOUS: i32 = 0x02 | 0x20;
    const MADV_HUGEPAGE: i32 = 14;

    unsafe extern "C" {
        fn mmap(addr: *mut u8, len: usize, prot: i32, flags: i32, fd: i32, offset: i64) -> *mut u8;
        fn munmap(addr: *mut u8, len: usize) -> i32;
        fn madvise(addr: *mut u8, len: usize, advice: i32) -> i32;
    }

    /// An anonymous private mapping holding `len` values from a 2 MiB boundary.
    pub struct Mapping<T> {
        map: *mut u8,
        map_len: usize,
        start: *mut T,
        len: usize,
        _owns: PhantomData<T>,
    }

    // SAFETY: the mapping is owned memory like a `Vec<T>`'s; sharing or sending it is as safe
    // as sharing or sending `T`s.
    unsafe impl<T: Send> Send for Mapping<T> {}
    unsafe impl<T: Sync> Sync for Mapping<T> {}

    impl<T: Zero> Mapping<T> {
        pub fn new(len: usize) -> Option<Mapping<T>> {
            let bytes = len.checked_mul(size_of::<T>())?;
            let map_len = bytes.checked_add(HUGE_PAGE)?;
            // SAFETY: a new anonymous mapping at an address of the kernel's choosing touches
            // no existing memory.
            let map = unsafe { mmap(std::ptr::null_mut(), map_len, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0) };
            if map as isize == -1 || map.is_null() {
                return None;
            }
            let skip = map.align_offset(HUGE_PAGE);
            // SAFETY: `skip < HUGE_PAGE`, so `start .. start + bytes` lies inside the mapping.
            let start = unsafe { map.add(skip) };
            // SAFETY: advice on pages of our own mapping. Refused advice (no THP in this
            // kernel) leaves ordinary pages, which is fine.
            unsafe { madvise(start, bytes / HUGE_PAGE * HUGE_PAGE, MADV_HUGEPAGE) };
            Some(Mapping { map, map_len, start: start.cast(), len, _owns: PhantomData })
        }

        pub fn as_slice(&self) -> &[T] {
            // SAFETY: `start` is aligned (2 MiB), the memory is ours for `len` values, and an
            // anonymous mapping reads as zeros, a valid `T` (`T: Zero`).
            unsafe { std::slice::from_raw_parts(self.start, self.len) }
        }
    }

    impl<T> Drop for Mapping<T> {
        fn drop(&mut self) {
            // SAFETY: the mapping made in `new`, unmapped once; `T: Zero` has no `Drop`.
            unsafe { munmap(self.map, self.map_len) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_large_tables_start_zeroed_and_are_writable() {
        for len in [0, 1, 1000, (8 << 20) / 8 + 3] {
            let z: Zeroed<std::cell::Cell<u64>> = Zeroed::new(len);
            assert_eq!(z.len(), len);
            assert!(z.iter().all(|w| w.get() == 0));
            if let Some(last) = z.last() {
                last.set(7);
                assert_eq!(z[len - 1].get(), 7);
            }
        }
    }
}
