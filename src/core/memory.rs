//! Memory for large tables (the hash table, the search threads' histories): how much the process
//! can actually have, read before allocating, and allocation that fails with an error instead of
//! aborting.
//!
//! Three limits bind a process, and the smallest wins: the memory the system has available
//! (`MemAvailable` in `/proc/meminfo`), the limit of the container it runs in (its cgroup,
//! `memory.max` for cgroup v2 or `memory.limit_in_bytes` for v1, less what the group already uses
//! apart from reclaimable file cache) and its own address-space limit (`ulimit -v`, `prlimit
//! --as`, less the address space it already maps). The first two matter most: with overcommit the
//! allocation itself succeeds and the process is killed later, when the table is touched. The
//! third makes the allocation fail, which `ZeroedTable::try_new` turns into an error too.

use crate::error::Error;

pub const MB: u64 = 1 << 20;

/// Left free beside any large table: thread stacks, buffers, the rest of the process.
pub const HEADROOM: u64 = 32 * MB;

/// The memory the process can still take and the limit that sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Room {
    pub bytes: u64,
    /// In words: "the system's available memory", "the container's memory limit", ...
    pub limit: &'static str,
}

/// The memory the process can still take, from the tightest of the limits that could be read;
/// `None` where none could be (not Linux, no /proc).
pub fn available() -> Option<Room> {
    let mut rooms = Vec::new();
    if let Some(bytes) = read("/proc/meminfo").and_then(|t| meminfo_available(&t)) {
        rooms.push(Room {
            bytes,
            limit: "the system's available memory",
        });
    }
    if let Some(bytes) = cgroup_room() {
        rooms.push(Room {
            bytes,
            limit: "the container's memory limit",
        });
    }
    if let Some(bytes) = address_space_room() {
        rooms.push(Room {
            bytes,
            limit: "the process's address-space limit",
        });
    }
    rooms.into_iter().min_by_key(|r| r.bytes)
}

/// Refuses `bytes` for `what` (a phrase such as "a hash table of 8192 MB") when they do not fit
/// in the memory available plus `freed` (what the caller releases before allocating, such as
/// the table being replaced), with the headroom left over.
pub fn check(what: &str, bytes: u64, freed: u64) -> Result<(), Error> {
    match available() {
        Some(room) => check_against(what, bytes, freed, room),
        None => Ok(()),
    }
}

/// `check` against a given room (for tests, and for callers that read it once).
pub fn check_against(what: &str, bytes: u64, freed: u64, room: Room) -> Result<(), Error> {
    let can = room.bytes.saturating_add(freed);
    if bytes.saturating_add(HEADROOM) <= can {
        return Ok(());
    }
    Err(Error::Memory(format!(
        "{what} does not fit: {} MB can be had ({})",
        can.saturating_sub(HEADROOM) / MB,
        room.limit
    )))
}

/// Asks the CPU to bring the cache line at `p` into its caches, for a read soon after. It reads
/// no value and cannot fault, whatever `p` is; on CPUs without the instruction it does nothing.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it reads nothing the program sees and never faults.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A type whose all-zero bytes are a valid value (integers, atomics, structs of them), so that a
/// [`ZeroedTable`] of it can start as zeroed memory.
///
/// # Safety
/// Every field of the type, recursively, must be valid with all its bytes zero.
pub unsafe trait ZeroValid {}

/// Huge pages are 2 MiB on x86-64 Linux, the size the kernel's transparent huge pages use.
const HUGE_PAGE: usize = 2 << 20;

/// A fixed-size table of `T`s that starts zeroed: the search's hash table. Its memory is its
/// own allocation, aligned to a huge page when it is at least that large, and on Linux the
/// kernel is asked to back it with huge pages (`madvise(MADV_HUGEPAGE)`, which the common
/// "madvise" setting of transparent huge pages needs) before it is first written. A probe of a
/// large table lands on a random page each time: with 4 KiB pages nearly every one also misses
/// the processor's address cache (TLB), with 2 MiB pages far fewer do. Where huge pages are
/// off or refused it is ordinary memory, and nothing else changes.
pub struct ZeroedTable<T: ZeroValid> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
}

// SAFETY: the table owns its elements as a `Vec` would.
unsafe impl<T: ZeroValid + Send> Send for ZeroedTable<T> {}
// SAFETY: shared access hands out only `&T`.
unsafe impl<T: ZeroValid + Sync> Sync for ZeroedTable<T> {}

impl<T: ZeroValid> ZeroedTable<T> {
    /// `n` zeroed `T`s, or an error naming `what` when the memory cannot be allocated.
    pub fn try_new(what: &str, n: usize) -> Result<ZeroedTable<T>, Error> {
        let layout = Self::layout(n)
            .ok_or_else(|| Error::Memory(format!("{what} cannot be allocated: too large")))?;
        if layout.size() == 0 {
            return Ok(ZeroedTable {
                ptr: std::ptr::NonNull::dangling(),
                len: n,
            });
        }
        // SAFETY: the layout's size is not zero.
        let raw = unsafe { std::alloc::alloc(layout) };
        let ptr = std::ptr::NonNull::new(raw.cast::<T>())
            .ok_or_else(|| Error::Memory(format!("{what} cannot be allocated")))?;
        #[cfg(target_os = "linux")]
        if layout.align() == HUGE_PAGE {
            // SAFETY: the range is the allocation just made, not yet written; the advice only
            // changes how the kernel backs it, and a refusal leaves it as it was.
            unsafe { libc::madvise(raw.cast(), layout.size(), libc::MADV_HUGEPAGE) };
        }
        // SAFETY: the allocation holds `n` `T`s, and zero bytes are a valid `T` (`ZeroValid`).
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, n) };
        Ok(ZeroedTable { ptr, len: n })
    }

    /// The allocation's layout: aligned to a huge page from a huge page's size on, to a cache
    /// line (at least) below it.
    fn layout(n: usize) -> Option<std::alloc::Layout> {
        let size = n.checked_mul(std::mem::size_of::<T>())?;
        let align = if size >= HUGE_PAGE {
            HUGE_PAGE
        } else {
            std::mem::align_of::<T>().max(64)
        };
        std::alloc::Layout::from_size_align(size, align).ok()
    }
}

impl<T: ZeroValid> std::ops::Deref for ZeroedTable<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` holds `len` initialised `T`s (or is dangling with a size of zero).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: ZeroValid> std::ops::DerefMut for ZeroedTable<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` makes the access unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: ZeroValid> Drop for ZeroedTable<T> {
    fn drop(&mut self) {
        let layout = Self::layout(self.len).expect("the layout it was made with");
        if layout.size() == 0 {
            return;
        }
        // SAFETY: the elements are dropped in place once, then their memory is freed with the
        // layout it was allocated with.
        unsafe {
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                self.ptr.as_ptr(),
                self.len,
            ));
            std::alloc::dealloc(self.ptr.as_ptr().cast(), layout);
        }
    }
}

/// Reads a whole file of at most `max` bytes, for files named in options and on command lines
/// (a net, an opening book) whose reading must neither hang nor abort: the path must be a
/// regular file, so a FIFO (whose opening would wait for a writer) or a device such as
/// `/dev/zero` (endless) is refused before it is opened; a larger file is refused by its size,
/// and one that grows while read stops at `max`; the buffer is reserved with an error instead of
/// an abort when the memory cannot be had. The error is an I/O error for the caller to prefix
/// with the path.
pub fn read_file(path: &std::path::Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Error as IoError, ErrorKind, Read};
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() {
        return Err(IoError::new(
            ErrorKind::InvalidInput,
            "is a directory, not a file",
        ));
    }
    if !meta.is_file() {
        return Err(IoError::new(
            ErrorKind::InvalidInput,
            "not a regular file (a pipe or a device); give a file",
        ));
    }
    let too_large = || {
        IoError::new(
            ErrorKind::InvalidInput,
            format!("larger than the {} MB such a file can be", max / MB),
        )
    };
    if meta.len() > max {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    reserve(&mut bytes, meta.len())?;
    std::fs::File::open(path)?
        .take(max + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Room for `more` bytes in `bytes`, after checking that the memory can be had: an error, never
/// an abort.
fn reserve(bytes: &mut Vec<u8>, more: u64) -> std::io::Result<()> {
    use std::io::{Error as IoError, ErrorKind};
    check(&format!("reading {} MB", more / MB), more, 0)
        .map_err(|e| IoError::new(ErrorKind::OutOfMemory, e.to_string()))?;
    bytes.try_reserve_exact(more as usize).map_err(|e| {
        IoError::new(
            ErrorKind::OutOfMemory,
            format!("cannot be read into memory: {e}"),
        )
    })
}

/// The largest input file read whole: a test suite, openings, games, a data set in text.
pub const MAX_INPUT: u64 = 4 << 30;

/// Reads a whole input named on a command line, at most `max` bytes: a regular file as
/// `read_file` does, and also a pipe (`<(xz -dc games.pgn.xz)`) or a device, read until its end
/// or until `max`, whichever comes first (so `/dev/zero` is an error, not the end of the memory).
/// The buffer grows only after the memory for it is checked and reserved.
pub fn read_input(path: &std::path::Path, max: u64) -> std::io::Result<Vec<u8>> {
    read_stream(path, max, false)
}

/// `read_input` as UTF-8 text. A NUL byte, which no text input holds, stops the reading at once
/// (so an endless device is refused in its first read, not after `max` bytes).
pub fn read_text(path: &std::path::Path, max: u64) -> std::io::Result<String> {
    String::from_utf8(read_stream(path, max, true)?).map_err(|_| not_text())
}

fn not_text() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "not UTF-8 text (a binary file?)",
    )
}

fn read_stream(path: &std::path::Path, max: u64, text: bool) -> std::io::Result<Vec<u8>> {
    use std::io::{Error as IoError, ErrorKind, Read};
    let meta = std::fs::metadata(path)?;
    if meta.is_file() || meta.is_dir() {
        let bytes = read_file(path, max)?;
        if text && bytes.contains(&0) {
            return Err(not_text());
        }
        return Ok(bytes);
    }
    let mut f = std::fs::File::open(path)?;
    let mut bytes: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = match f.read(&mut buf) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if text && buf[..n].contains(&0) {
            return Err(not_text());
        }
        if (bytes.len() + n) as u64 > max {
            return Err(IoError::new(
                ErrorKind::InvalidInput,
                format!("longer than the {} MB such an input can be", max / MB),
            ));
        }
        if bytes.capacity() - bytes.len() < n {
            // Doubling, bounded by what may still come.
            let more = (bytes.len().max(1 << 20) as u64).min(max - bytes.len() as u64) as usize;
            reserve(&mut bytes, more.max(n) as u64)?;
        }
        bytes.extend_from_slice(&buf[..n]);
    }
}

/// Makes every allocation of a megabyte or more a mapping of its own, given back to the system
/// when freed. Without it the C library raises that threshold to the size of the largest block
/// freed so far, and a server that makes and drops hash tables on many threads keeps them all
/// resident. Process-wide; call it once, early.
pub fn return_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tuning parameter of the allocator.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// `MemAvailable` from the text of /proc/meminfo, in bytes.
pub fn meminfo_available(text: &str) -> Option<u64> {
    field_kb(text, "MemAvailable:").map(|kb| kb.saturating_mul(1024))
}

/// A `Name:   1234 kB` line's number.
fn field_kb(text: &str, name: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// A number in a `key value` file such as memory.stat.
fn stat_value(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let mut words = l.split_whitespace();
        (words.next() == Some(key))
            .then(|| words.next()?.parse().ok())
            .flatten()
    })
}

/// A cgroup's limit: a number of bytes; `max` (v2) or a value near 2^63 (v1) is no limit.
pub fn parse_limit(text: &str) -> Option<u64> {
    let t = text.trim();
    if t == "max" {
        return None;
    }
    t.parse::<u64>().ok().filter(|&n| n < 1 << 60)
}

/// What a cgroup leaves: its limit less its usage, the inactive file cache counted as free (the
/// kernel reclaims it before it kills anything).
pub fn cgroup_left(limit: &str, usage: &str, stat: &str, inactive_key: &str) -> Option<u64> {
    let limit = parse_limit(limit)?;
    let usage: u64 = usage.trim().parse().ok()?;
    let inactive = stat_value(stat, inactive_key).unwrap_or(0);
    Some(limit.saturating_sub(usage.saturating_sub(inactive)))
}

/// The tightest cgroup limit on this process: its own group and every group above it (v2), or
/// the memory controller's group (v1), where the files can be read.
fn cgroup_room() -> Option<u64> {
    let mut dirs: Vec<(String, bool)> = Vec::new();
    if let Some(own) = read("/proc/self/cgroup") {
        for line in own.lines() {
            let mut parts = line.splitn(3, ':');
            let (_, controllers, path) = (parts.next(), parts.next(), parts.next());
            let (Some(controllers), Some(path)) = (controllers, path) else {
                continue;
            };
            if controllers.is_empty() {
                // v2: the group and its parents.
                let mut p = path.trim_end_matches('/').to_string();
                loop {
                    dirs.push((format!("/sys/fs/cgroup{p}"), true));
                    match p.rfind('/') {
                        Some(i) => p.truncate(i),
                        None => break,
                    }
                }
            } else if controllers.split(',').any(|c| c == "memory") {
                dirs.push((
                    format!("/sys/fs/cgroup/memory{}", path.trim_end_matches('/')),
                    false,
                ));
            }
        }
    }
    // Inside a container the group is often mounted as the root of the hierarchy.
    dirs.push(("/sys/fs/cgroup".into(), true));
    dirs.push(("/sys/fs/cgroup/memory".into(), false));
    dirs.iter()
        .filter_map(|(dir, v2)| {
            let (limit, usage, inactive) = if *v2 {
                ("memory.max", "memory.current", "inactive_file")
            } else {
                (
                    "memory.limit_in_bytes",
                    "memory.usage_in_bytes",
                    "total_inactive_file",
                )
            };
            cgroup_left(
                &read(&format!("{dir}/{limit}"))?,
                &read(&format!("{dir}/{usage}"))?,
                &read(&format!("{dir}/memory.stat")).unwrap_or_default(),
                inactive,
            )
        })
        .min()
}

/// The address space left under the process's limit (`RLIMIT_AS`), if it has one.
#[cfg(unix)]
fn address_space_room() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the one struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } != 0
        || lim.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let mapped = read("/proc/self/status")
        .and_then(|t| field_kb(&t, "VmSize:"))
        .map_or(0, |kb| kb.saturating_mul(1024));
    // rlim_t is u64 on Linux but not on every Unix.
    #[allow(clippy::unnecessary_cast)]
    let limit = lim.rlim_cur as u64;
    Some(limit.saturating_sub(mapped))
}

#[cfg(not(unix))]
fn address_space_room() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, PartialEq)]
    struct Pair(u64, u32);
    // SAFETY: two integers.
    unsafe impl ZeroValid for Pair {}

    #[test]
    fn a_zeroed_table_starts_zeroed_keeps_what_is_written_and_aligns_large_ones_to_huge_pages() {
        for n in [0, 1, 1000, (HUGE_PAGE / 16) * 3 + 5] {
            let mut t = ZeroedTable::<Pair>::try_new("a test table", n).unwrap();
            assert_eq!(t.len(), n);
            assert!(t.iter().all(|p| *p == Pair::default()));
            if n > 1 {
                t[n - 1] = Pair(7, 9);
                t[0].0 = 3;
                assert_eq!((&t[0], &t[n - 1]), (&Pair(3, 0), &Pair(7, 9)));
                assert!(t[1..n - 1].iter().all(|p| *p == Pair::default()));
            }
            let bytes = n * std::mem::size_of::<Pair>();
            let align = t.as_ptr() as usize;
            if bytes >= HUGE_PAGE {
                assert_eq!(align % HUGE_PAGE, 0, "{n} pairs");
            } else if n > 0 {
                assert_eq!(align % 64, 0, "{n} pairs");
            }
        }
        let too_many = ZeroedTable::<Pair>::try_new("a table of too many pairs", usize::MAX / 8);
        assert!(too_many.is_err_and(|e| e.to_string().contains("a table of too many pairs")));
    }

    #[test]
    fn read_file_takes_files_and_refuses_the_rest_without_opening_them() {
        let dir = std::env::temp_dir().join(format!("rookery-read-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("ten");
        std::fs::write(&file, b"0123456789").unwrap();
        assert_eq!(read_file(&file, 10).unwrap(), b"0123456789");
        let big = read_file(&file, 9).unwrap_err().to_string();
        assert!(big.contains("larger than"), "{big}");
        let d = read_file(&dir, 1 << 20).unwrap_err().to_string();
        assert!(d.contains("is a directory"), "{d}");
        assert!(read_file(&dir.join("none"), 10).is_err());
        #[cfg(target_os = "linux")]
        {
            let dev = read_file(std::path::Path::new("/dev/zero"), 1 << 20).unwrap_err();
            assert!(dev.to_string().contains("not a regular file"), "{dev}");
            // A FIFO with no writer: opening it would wait for ever.
            let fifo = dir.join("fifo");
            assert!(
                std::process::Command::new("mkfifo")
                    .arg(&fifo)
                    .status()
                    .unwrap()
                    .success()
            );
            let f = read_file(&fifo, 1 << 20).unwrap_err();
            assert!(f.to_string().contains("not a regular file"), "{f}");
            // A kernel file reports size 0 and is read to its end all the same.
            let status = read_file(std::path::Path::new("/proc/self/status"), 1 << 20).unwrap();
            assert!(String::from_utf8_lossy(&status).contains("VmRSS"));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn read_input_takes_pipes_and_stops_endless_ones() {
        use std::path::Path;
        let dir = std::env::temp_dir().join(format!("rookery-read-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("text");
        std::fs::write(&file, "e4 e5\n").unwrap();
        assert_eq!(read_text(&file, 100).unwrap(), "e4 e5\n");
        let zero = read_input(Path::new("/dev/zero"), 3 << 20).unwrap_err();
        assert!(zero.to_string().contains("longer than the 3 MB"), "{zero}");
        // As text, the first read's NUL bytes end it.
        let zero = read_text(Path::new("/dev/zero"), MAX_INPUT).unwrap_err();
        assert!(zero.to_string().contains("not UTF-8 text"), "{zero}");
        // A pipe, as a shell's process substitution gives: 5 MB read whole, in many reads.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "head -c 5000000 /dev/zero | tr '\\0' 'a'"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::os::fd::AsRawFd;
        let fd = child.stdout.as_ref().unwrap().as_raw_fd();
        let text = read_text(Path::new(&format!("/proc/self/fd/{fd}")), 8 << 20).unwrap();
        assert_eq!(text.len(), 5_000_000);
        assert!(text.bytes().all(|b| b == b'a'));
        child.wait().unwrap();
        std::fs::write(&file, [0xff, 0xfe, 0x00]).unwrap();
        let bin = read_text(&file, 100).unwrap_err();
        assert!(bin.to_string().contains("not UTF-8"), "{bin}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn limits_are_read_from_the_kernels_files() {
        let meminfo = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(meminfo_available(meminfo), Some(2048 * 1024));
        assert_eq!(meminfo_available("MemTotal: 5 kB\n"), None);
        assert_eq!(parse_limit("max\n"), None);
        assert_eq!(parse_limit("9223372036854771712\n"), None, "v1's no limit");
        assert_eq!(parse_limit("536870912\n"), Some(512 * MB));
        let stat = "anon 1000\nfile 5000\ninactive_file 4000\nactive_file 1000\n";
        assert_eq!(
            cgroup_left("10000", "6000", stat, "inactive_file"),
            Some(8000),
            "inactive file cache counts as free"
        );
        assert_eq!(cgroup_left("max", "6000", stat, "inactive_file"), None);
        assert_eq!(cgroup_left("1000", "6000", "", "inactive_file"), Some(0));
    }

    #[test]
    fn a_size_above_the_room_is_refused_with_the_figures() {
        let room = Room {
            bytes: 1024 * MB,
            limit: "the container's memory limit",
        };
        assert!(check_against("a hash table of 512 MB", 512 * MB, 0, room).is_ok());
        let e = check_against("a hash table of 8192 MB", 8192 * MB, 0, room).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("8192 MB") && text.contains("992 MB") && text.contains("container"),
            "{text}"
        );
        // The table being replaced is freed first: its memory counts.
        assert!(check_against("a hash table of 1500 MB", 1500 * MB, 0, room).is_err());
        assert!(check_against("a hash table of 1500 MB", 1500 * MB, 600 * MB, room).is_ok());
        assert!(
            check_against("x", u64::MAX, 0, room).is_err(),
            "no overflow"
        );
    }

    #[test]
    fn this_machine_has_some_room_and_not_a_petabyte() {
        let room = available().expect("Linux reports its memory");
        assert!(room.bytes > 0);
        assert!(check("a table of a petabyte", 1 << 50, 0).is_err());
        assert!(check("a table of a megabyte", MB, 0).is_ok());
    }
}
