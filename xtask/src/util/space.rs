//! Room on a filesystem: what is free, and the sentence an error gets when
//! what failed failed for want of it (a full results disk, a /dev/shm that
//! filled under a server), so that the error names the filesystem instead
//! of leaving the user a bare "No space left on device".

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Below this much free space (or 0.5% of the filesystem, whichever is
/// more) a filesystem is called full: a server's next file extension or
/// a chart's write does not fit.
const FULL_BELOW: u64 = 4 * MIB;

/// The filesystem holding `path` (its nearest existing ancestor): bytes
/// free to this user and its size.
fn statvfs(path: &Path) -> Option<(u64, u64)> {
    let mut p: PathBuf = path.to_path_buf();
    while !p.exists() {
        p = p.parent()?.to_path_buf();
    }
    let st = rustix::fs::statvfs(&p).ok()?;
    Some((st.f_bavail * st.f_frsize, st.f_blocks * st.f_frsize))
}

/// Bytes free to this user on the filesystem holding `path`.
pub fn free_bytes(path: &Path) -> Option<u64> {
    statvfs(path).map(|(free, _)| free)
}

/// What every no-room sentence holds.
pub const NO_ROOM: &str = " ran out of room (";

/// Whether a program's own words (an error, an error log) say a write
/// found no room: ENOSPC by its text or its number, as the kernel, Rust
/// and InnoDB print it.
pub fn says_no_room(text: &str) -> bool {
    // "error 28" covers Rust's "os error 28" and InnoDB's "failed with
    // error 28"
    [
        "No space left on device",
        "error 28",
        "errno 28",
        "Errcode: 28",
    ]
    .iter()
    .any(|w| text.contains(w))
}

/// The sentence for a failure on the filesystem holding `path`, when that
/// filesystem is full now, was full at some point while the failing step
/// ran (`lowest_free`, from a [`LowWater`]), or the failing program said it
/// found no room (`said`: its words). The filesystem as it is afterwards
/// cannot say alone: a server that failed to preallocate a file removes
/// it, and one that dies frees the files it held open and unlinked.
pub fn no_room(path: &Path, said: &str, lowest_free: Option<u64>) -> Option<String> {
    let (free, size) = statvfs(path)?;
    let threshold = FULL_BELOW.max(size / 200);
    let lowest = lowest_free.map_or(free, |l| l.min(free));
    let full = lowest < threshold;
    (full || says_no_room(said)).then(|| {
        let while_it_ran = if lowest < free {
            format!(", {} at the least while it ran", human_bytes(lowest))
        } else {
            String::new()
        };
        format!(
            "the filesystem of {}{NO_ROOM}{} free of {} now{while_it_ran}): free space there and \
             run the same command again to resume",
            path.display(),
            human_bytes(free),
            human_bytes(size)
        )
    })
}

/// `e`, with the sentence of `no_room` when it applies, judged by the
/// filesystem holding `path` (now, and at its lowest while the step ran
/// when it was watched) and by `said` and `e`'s own words.
pub fn note_if_no_room(
    e: anyhow::Error,
    path: &Path,
    said: &str,
    lowest_free: Option<u64>,
) -> anyhow::Error {
    match no_room(path, &format!("{said}\n{e:#}"), lowest_free) {
        Some(note) => e.context(note),
        None => e,
    }
}

/// How often a [`LowWater`] reads its filesystem's free space.
const LOW_WATER_EVERY: Duration = Duration::from_millis(100);

/// The least free space a filesystem had while a step ran, read by a
/// thread of its own every [`LOW_WATER_EVERY`] until [`LowWater::lowest`]:
/// what tells a step that failed because its filesystem filled from one
/// that failed for another reason, once the failure has freed the space.
pub struct LowWater {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Option<u64>>>,
}

impl LowWater {
    /// Starts watching the filesystem holding `path`.
    pub fn watch(path: &Path) -> LowWater {
        let path = path.to_path_buf();
        Self::watch_with(move || free_bytes(&path))
    }

    /// Starts watching what `read_free` reads.
    fn watch_with(read_free: impl Fn() -> Option<u64> + Send + 'static) -> LowWater {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        // a watcher that cannot start leaves the judgement to the
        // filesystem as it is afterwards
        let thread = std::thread::Builder::new()
            .name("low-water".into())
            .spawn(move || {
                let mut lowest: Option<u64> = None;
                loop {
                    if let Some(free) = read_free() {
                        lowest = Some(lowest.map_or(free, |l| l.min(free)));
                    }
                    if stopped.load(Ordering::SeqCst) {
                        return lowest;
                    }
                    std::thread::park_timeout(LOW_WATER_EVERY);
                }
            })
            .ok();
        LowWater { stop, thread }
    }

    /// Stops watching: the least free space read (one last read is made
    /// now), or None when none could be read.
    pub fn lowest(mut self) -> Option<u64> {
        self.finish()
    }

    fn finish(&mut self) -> Option<u64> {
        self.stop.store(true, Ordering::SeqCst);
        let thread = self.thread.take()?;
        thread.thread().unpark();
        thread.join().ok().flatten()
    }
}

impl Drop for LowWater {
    fn drop(&mut self) {
        self.finish();
    }
}

/// `1.5 GiB`, `12 MiB`, `640 KiB`.
pub fn human_bytes(bytes: u64) -> String {
    if bytes >= GIB {
        format!("{:.1} GiB", bytes as f64 / GIB as f64)
    } else if bytes >= MIB {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{} KiB", bytes / 1024)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_their_unit() {
        assert_eq!(human_bytes(3 * GIB / 2), "1.5 GiB");
        assert_eq!(human_bytes(12 * MIB + 5), "12 MiB");
        assert_eq!(human_bytes(640 * 1024), "640 KiB");
    }

    #[test]
    fn a_filesystem_with_room_is_called_full_only_when_the_program_said_so() {
        // the directory of the test binary's target has room for its build
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert!(free_bytes(here).is_some_and(|f| f > FULL_BELOW));
        assert_eq!(no_room(here, "all went well", None), None);
        // a program that said it found no room is believed
        let said = "[ERROR] InnoDB: preallocating 1073741824 bytes for file ib_logfile101 \
                    failed with error 28";
        let note = no_room(here, said, None).expect("the server's words count");
        assert!(
            note.contains(NO_ROOM) && note.contains(&here.display().to_string()),
            "{note}"
        );
        // a path not made yet is judged by its nearest ancestor
        assert_eq!(free_bytes(&here.join("no/such/dir")), free_bytes(here));
    }

    #[test]
    fn a_filesystem_that_was_full_while_the_step_ran_is_called_full_though_it_has_room_now() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let note = no_room(here, "exit status: 1", Some(0)).expect("it was full");
        assert!(
            note.contains(NO_ROOM) && note.contains(", 0 KiB at the least while it ran"),
            "{note}"
        );
        // room all along: nothing to say
        assert_eq!(no_room(here, "exit status: 1", Some(u64::MAX)), None);
    }

    #[test]
    fn the_low_water_mark_is_the_least_free_space_read_while_it_watched() {
        use std::sync::atomic::AtomicUsize;
        // a filesystem that filled and was freed again: 10 GiB, 0, 10 GiB
        let readings = [10 * GIB, 0, 10 * GIB];
        let reads = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&reads);
        let watch = LowWater::watch_with(move || {
            let n = counted.fetch_add(1, Ordering::SeqCst);
            Some(readings[n.min(readings.len() - 1)])
        });
        while reads.load(Ordering::SeqCst) < readings.len() {
            std::thread::sleep(LOW_WATER_EVERY / 4);
        }
        assert_eq!(watch.lowest(), Some(0));
        // one that could never be read says nothing
        assert_eq!(LowWater::watch_with(|| None).lowest(), None);
    }
}
