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

/// When the filesystem holding `path` is full: the sentence that says so,
/// naming it, with what is free of what.
pub fn full_filesystem(path: &Path) -> Option<String> {
    let (free, size) = statvfs(path)?;
    (free < FULL_BELOW.max(size / 200)).then(|| {
        format!(
            "the filesystem of {} is full ({} free of {}): free space there and run the \
             same command again to resume",
            path.display(),
            human_bytes(free),
            human_bytes(size)
        )
    })
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
    fn a_filesystem_with_room_is_not_called_full() {
        // the directory of the test binary's target has room for its build
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert!(free_bytes(here).is_some_and(|f| f > FULL_BELOW));
        assert_eq!(full_filesystem(here), None);
        // a path not made yet is judged by its nearest ancestor
        assert_eq!(free_bytes(&here.join("no/such/dir")), free_bytes(here));
    }
}
