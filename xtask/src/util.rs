//! Small helpers shared by the stages: where the cache lives, how a long
//! external command is run and logged, how result files are written.

use anyhow::{Context, Result};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod command;
pub mod space;
pub use command::{start_time, tool_identity, Child, Command, MeteredRun, Streamed, TOOL_ENV};

/// The directory under which sources, builds, ccache and datadir templates
/// live. Never inside the repository: MariaDB source must not be committed.
/// `INNODB_LAB_CACHE` overrides the default `~/.cache/innodb-lab`.
pub fn cache_root() -> PathBuf {
    crate::environment::current().cache.clone()
}

/// The repository root (the workspace), found from this crate's manifest.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// The atomic writes this process has made (or tried): what
/// [`crate::environment::FAIL_WRITE`] counts.
pub fn atomic_writes() -> u64 {
    ATOMIC_WRITES.load(std::sync::atomic::Ordering::SeqCst)
}

static ATOMIC_WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory, synced, then a rename, so a reader never sees half a result
/// and a crash leaves the file as it was or as it is now.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    // a write that failed on a full disk names the filesystem
    replace_file(path, bytes).map_err(|e| space::note_if_no_room(e, path, "", None))
}

/// `write_atomic`'s steps: the temporary file, its bytes, the sync, the
/// write-failure seam, the rename.
fn replace_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    let cannot_write = || format!("cannot write {}", path.display());
    tmp.write_all(bytes).with_context(cannot_write)?;
    tmp.as_file().sync_all().with_context(cannot_write)?;
    let n = ATOMIC_WRITES.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
    if crate::environment::injected_write_failure() == Some(n) {
        // the temporary file goes with `tmp`; the target is as it was
        anyhow::bail!(
            "cannot write {}: write {n} of this process made to fail by {} (a test)",
            path.display(),
            crate::environment::FAIL_WRITE
        );
    }
    tmp.persist(path)
        .with_context(|| format!("cannot rename the temporary file to {}", path.display()))?;
    Ok(())
}

/// Serializes `value` as pretty JSON and writes it atomically.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_vec_pretty(value)?;
    text.push(b'\n');
    write_atomic(path, &text)
}

/// The record a user's results hold at `path`: None when there is no such
/// file; a file that cannot be read or parsed is an error naming it, since
/// what it holds (earlier warnings, another bisection) must not be lost by
/// being taken for nothing.
pub fn read_json_if_present<T: serde::de::DeserializeOwned>(
    path: &Path,
) -> anyhow::Result<Option<T>> {
    use anyhow::Context as _;
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    serde_json::from_str(&text).map(Some).with_context(|| {
        format!(
            "{} is not a record this tool wrote (move it away or repair it)",
            path.display()
        )
    })
}

/// The value `write_json` left at `path`, if the file is there and parses
/// (work whose record is written last: a missing or torn one is redone).
pub fn read_json_if_any<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_str(&fs::read_to_string(path).ok()?).ok()
}

/// The last `n` lines of a text file (lossy UTF-8), for error messages.
pub fn tail_lines(path: &Path, n: usize) -> String {
    let Ok(bytes) = fs::read(path) else {
        return format!("(no file {})", path.display());
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// A stage of work whose wall time is printed when it ends, so every log
/// says how long download, configure, build, prepare and each run took.
pub struct Stage {
    label: String,
    start: Instant,
}

impl Stage {
    pub fn start(label: impl Into<String>) -> Stage {
        let label = label.into();
        eprintln!("==> {label}");
        Stage {
            label,
            start: Instant::now(),
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Prints the stage's wall time and returns it in seconds.
    pub fn done(self) -> f64 {
        let secs = self.start.elapsed().as_secs_f64();
        eprintln!("<== {} ({})", self.label, human_duration(secs));
        secs
    }
}

pub fn human_duration(secs: f64) -> String {
    if secs < 60.0 {
        format!("{secs:.1} s")
    } else {
        let s = secs.round() as u64;
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

/// sha256 of bytes as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// Replaces characters that are awkward in paths with `-`.
pub fn slug(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x/result.json");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        // no temporary file is left behind
        assert_eq!(fs::read_dir(path.parent().unwrap()).unwrap().count(), 1);
    }

    #[test]
    fn a_record_that_is_not_there_is_none_and_a_corrupt_one_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("matrix.json");
        assert!(read_json_if_present::<Vec<u32>>(&path).unwrap().is_none());
        write_json(&path, &vec![1u32, 2]).unwrap();
        assert_eq!(
            read_json_if_present::<Vec<u32>>(&path).unwrap(),
            Some(vec![1, 2])
        );
        fs::write(&path, "{\"allowed_settings\": [").unwrap();
        let err = format!("{:#}", read_json_if_present::<Vec<u32>>(&path).unwrap_err());
        assert!(
            err.starts_with(&format!(
                "{} is not a record this tool wrote",
                path.display()
            )),
            "{err}"
        );
        // the file is left as it was
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "{\"allowed_settings\": ["
        );
    }

    #[test]
    fn slug_keeps_versions_readable() {
        assert_eq!(
            slug("mariadb=1:10.11.18-0+deb12u1"),
            "mariadb-1-10.11.18-0-deb12u1"
        );
    }
}
