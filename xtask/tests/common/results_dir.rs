//! A one-cell real matrix and what its results directory holds, for the
//! tests that make its writes fail (`write_failures_matrix`, `full_disk`).

// the tests start the tool as a user would, as a plain child process
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

/// One cell: base of Debian's 10.11.18 on a tiny table, one thread, a
/// one-second measured run; every run counts (the suites run beside
/// others).
pub fn one_cell_matrix(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(format!("{name}.toml"));
    std::fs::write(
        &p,
        format!(
            "name = \"{name}\"\nrepetitions = 1\nbusy_cpu_bound = 1000000.0\n\
             [[tree]]\nspec = \"{TREE}\"\nname = \"10.11.18\"\nvariants = [\"base\"]\n\
             [[workload]]\nname = \"points-covered-pk\"\ntables = 1\ntable_size = 2000\n\
             threads = [1]\narm_seconds = 0\nwarmup_seconds = 0\nmeasure_seconds = 1\n\
             diagnostic_seconds = 0\nidle_limit_seconds = 0\n"
        ),
    )
    .unwrap();
    p
}

/// A scratch directory the server's user can pass through.
pub fn scratch_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
    dir
}

/// `matrix m --out out` with run directories under `shm` and `env` on
/// top (none of the write-failure seam unless given): exit code and
/// standard error.
pub fn run_matrix(
    m: &Path,
    out: &Path,
    shm: &Path,
    env: &[(&str, String)],
) -> (Option<i32>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
    cmd.args([
        "matrix",
        m.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ])
    .env("INNODB_LAB_SHM", shm)
    .env_remove(xtask::environment::FAIL_WRITE);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Every file of a results directory by its path below it, without the
/// cells' logs (written as the commands run, not by the store) and the
/// directory's lock, `timings.json` as `{}` when it is whole; nothing for
/// a directory that is not there.
pub fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, into: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            if rel == Path::new("logs") || rel == Path::new(".lock") {
                continue;
            }
            if rel == Path::new("timings.json") {
                // what the run cost differs from run to run by nature: it
                // is compared as there and whole, not byte for byte
                let bytes = std::fs::read(&p).unwrap();
                let whole = serde_json::from_slice::<serde_json::Value>(&bytes).is_ok();
                into.insert(rel, if whole { b"{}".to_vec() } else { bytes });
            } else if p.is_dir() {
                walk(root, &p, into);
            } else {
                into.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut all = BTreeMap::new();
    if dir.exists() {
        walk(dir, dir, &mut all);
    }
    all
}

/// A copy of `from` holding only what the cells left: the matrix record
/// and the run files.
pub fn cells_only(from: &Path, to: &Path) {
    for (rel, bytes) in files(from) {
        if rel == Path::new("matrix.json") || rel.starts_with("runs") {
            let dest = to.join(&rel);
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            std::fs::write(dest, bytes).unwrap();
        }
    }
}

/// No temporary file of an atomic write is left, and every JSON file
/// parses (none is half written).
pub fn nothing_half_written(dir: &Path, what: &str) {
    for (rel, bytes) in files(dir) {
        let name = rel.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            !name.starts_with(".tmp"),
            "{what}: a temporary file is left: {}",
            rel.display()
        );
        if name.ends_with(".json") {
            assert!(
                serde_json::from_slice::<serde_json::Value>(&bytes).is_ok(),
                "{what}: {} is half written",
                rel.display()
            );
        }
    }
}

/// Every file of `now` is as in `before` or as in `after`.
pub fn each_file_as_before_or_after(
    now: &BTreeMap<PathBuf, Vec<u8>>,
    before: &BTreeMap<PathBuf, Vec<u8>>,
    after: &BTreeMap<PathBuf, Vec<u8>>,
    what: &str,
) {
    for (rel, bytes) in now {
        assert!(
            before.get(rel) == Some(bytes) || after.get(rel) == Some(bytes),
            "{what}: {} is neither as before nor as after",
            rel.display()
        );
    }
}
