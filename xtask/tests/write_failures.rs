//! Every write can fail, SQLite's way: the report of a committed results
//! directory is written again once for each write it makes, with that one
//! write made to fail (`INNODB_LAB_FAIL_WRITE`, after the temporary file
//! is written and before the rename, as a full disk or a crash there would
//! leave it). After each failure every file is as it was before or as a
//! run without the failure leaves it, no temporary file is left, and the
//! next run completes the directory to exactly what that run leaves.
//!
//! One test in its own binary: the seam counts the writes of the whole
//! process.

#![allow(clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every file under `dir`, by its path below it.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, into: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, into);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_path_buf();
                into.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut all = BTreeMap::new();
    walk(dir, dir, &mut all);
    all
}

/// A copy of the committed report `name` in a scratch directory.
fn copy_of(name: &str) -> tempfile::TempDir {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../reports")
        .join(name);
    let dest = tempfile::tempdir().unwrap();
    for (rel, bytes) in files(&src) {
        let to = dest.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, bytes).unwrap();
    }
    dest
}

#[test]
#[ignore = "needs rsvg-convert (librsvg2-bin) for the charts' PNGs: cargo xtask test runs it"]
fn every_write_of_a_report_can_fail_and_the_next_run_completes_it() {
    let report = "mechanism-lookup-mark";
    let before = files(copy_of(report).path());

    // the run without a failure: what every file should end as, and how
    // many writes it makes
    let reference = copy_of(report);
    let first = xtask::util::atomic_writes();
    xtask::report::write(reference.path()).unwrap();
    let writes = xtask::util::atomic_writes() - first;
    let after = files(reference.path());
    assert!(writes >= 8, "{writes} writes");

    for n in 1..=writes {
        let dir = copy_of(report);
        let failing = xtask::util::atomic_writes() + n;
        std::env::set_var(xtask::environment::FAIL_WRITE, failing.to_string());
        let err = xtask::report::write(dir.path());
        std::env::remove_var(xtask::environment::FAIL_WRITE);
        let err = format!(
            "{:#}",
            err.expect_err("the failing write did not fail the run")
        );
        assert!(
            err.contains(&format!("write {failing} of this process made to fail"))
                && err.contains(&dir.path().display().to_string()),
            "write {n}: {err}"
        );
        for (rel, bytes) in files(dir.path()) {
            let was = before.get(&rel) == Some(&bytes);
            let will_be = after.get(&rel) == Some(&bytes);
            assert!(
                was || will_be,
                "write {n} of {writes}: {} is neither as before nor as after ({err})",
                rel.display()
            );
        }
        xtask::report::write(dir.path()).unwrap();
        assert!(
            files(dir.path()) == after,
            "write {n} of {writes}: the run after the failure left another directory"
        );
    }
}
