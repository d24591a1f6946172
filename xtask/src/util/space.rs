//! Room on a filesystem: what is free, and the sentence an error gets when
//! what failed failed for want of it (a full results disk, a /dev/shm that
//! filled under a server), so that the error names the filesystem instead
//! of leaving the user a bare "No space left on device".

use std::path::{Path, PathBuf};

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
/// filesystem is full now or the failing program said it found no room
/// (`said`: its words; a server that failed to preallocate a file removes
/// it, so the space is free again by the time the tool looks).
pub fn no_room(path: &Path, said: &str) -> Option<String> {
    let (free, size) = statvfs(path)?;
    let full = free < FULL_BELOW.max(size / 200);
    (full || says_no_room(said)).then(|| {
        format!(
            "the filesystem of {}{NO_ROOM}{} free of {} now): free space there and run the \
             same command again to resume",
            path.display(),
            human_bytes(free),
            human_bytes(size)
        )
    })
}

/// `e`, with the sentence of `no_room` when it applies, judged by the
/// filesystem holding `path` and by `said` and `e`'s own words.
pub fn note_if_no_room(e: anyhow::Error, path: &Path, said: &str) -> anyhow::Error {
    match no_room(path, &format!("{said}\n{e:#}")) {
        Some(note) => e.context(note),
        None => e,
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
        assert_eq!(no_room(here, "all went well"), None);
        // a program that said it found no room is believed
        let said = "[ERROR] InnoDB: preallocating 1073741824 bytes for file ib_logfile101 \
                    failed with error 28";
        let note = no_room(here, said).expect("the server's words count");
        assert!(
            note.contains(NO_ROOM) && note.contains(&here.display().to_string()),
            "{note}"
        );
        // a path not made yet is judged by its nearest ancestor
        assert_eq!(free_bytes(&here.join("no/such/dir")), free_bytes(here));
    }
}
