//! A full disk, both ways a matrix meets one: its results directory on a
//! small filesystem that fills while the report is written, and the run
//! directories' filesystem (/dev/shm) filling under a server. Each time
//! the error names the filesystem, nothing is written half, and the same
//! command run again once space is freed completes the matrix.
//!
//! The filesystems are size-limited tmpfs mounts made by the test, which
//! needs root for them (as `cargo xtask test` runs).

#![allow(clippy::disallowed_methods)]

mod common;

use common::results_dir::{
    cells_only, each_file_as_before_or_after, files, nothing_half_written, one_cell_matrix,
    run_matrix, scratch_dir,
};
use std::io::{BufRead, BufReader};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One test at a time: each runs the tool, which takes the cache's lock
/// (under the test command they share its holder's).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A tmpfs of `size` mounted at a directory; unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(at).unwrap();
        let status = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0711"),
                "tmpfs",
            ])
            .arg(at)
            .status()
            .unwrap();
        assert!(
            status.success(),
            "mount a {size} tmpfs at {} (needs root)",
            at.display()
        );
        Tmpfs(at.to_path_buf())
    }

    /// Bytes free on it.
    fn free(&self) -> u64 {
        let st = rustix::fs::statvfs(&self.0).unwrap();
        st.f_bavail * st.f_frsize
    }

    /// Takes all but `leave` bytes of its free space with a file of its
    /// own (allocated, not sparse: a tmpfs counts only what is allocated).
    fn fill(&self, leave: u64) -> PathBuf {
        let filler = self.0.join("filler");
        let f = std::fs::File::create(&filler).unwrap();
        let mut len = self.free().saturating_sub(leave);
        // the last pages may go to the file's own metadata: back off
        while len > 0
            && rustix::fs::fallocate(f.as_fd(), rustix::fs::FallocateFlags::empty(), 0, len)
                .is_err()
        {
            len = len.saturating_sub(64 << 10);
        }
        if leave == 0 {
            // what is left, a page at a time, until nothing is
            let mut at = len;
            while rustix::fs::fallocate(f.as_fd(), rustix::fs::FallocateFlags::empty(), at, 4096)
                .is_ok()
            {
                at += 4096;
            }
        }
        filler
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab; root for the tmpfs mounts): cargo xtask test runs it"]
fn a_results_disk_that_fills_during_the_report_is_named_and_the_next_run_completes_it() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch_dir();
    let shm = dir.path().join("shm");
    let m = one_cell_matrix(dir.path(), "full-disk");
    // the cells, run once on a disk with room
    let ran = dir.path().join("ran");
    let (code, err) = run_matrix(&m, &ran, &shm, &[]);
    assert_eq!(code, Some(0), "{err}");
    // what the report phase writes on the cells alone
    let reference = dir.path().join("reference");
    cells_only(&ran, &reference);
    let before = files(&reference);
    let (code, err) = run_matrix(&m, &reference, &shm, &[]);
    assert_eq!(code, Some(0), "{err}");
    let after = files(&reference);
    let report_bytes: u64 = after
        .iter()
        .filter(|(rel, _)| !before.contains_key(*rel))
        .map(|(_, b)| b.len() as u64)
        .sum();

    // the same on a filesystem with room for half the report
    let fs = Tmpfs::mount(&dir.path().join("small"), "16M");
    let out = fs.0.join("out");
    cells_only(&ran, &out);
    let filler = fs.fill(report_bytes / 2);
    let (code, err) = run_matrix(&m, &out, &shm, &[]);
    assert_ne!(
        code,
        Some(0),
        "the report fitted in {} bytes:\n{err}",
        report_bytes / 2
    );
    assert!(
        err.contains(&format!("the filesystem of {}", out.display()))
            && err.contains(" ran out of room ("),
        "the error does not name the full filesystem:\n{err}"
    );
    nothing_half_written(&out, "after the failure");
    each_file_as_before_or_after(&files(&out), &before, &after, "after the failure");
    assert_ne!(files(&out), after, "the full filesystem stopped nothing");

    // space freed: the same command completes it
    std::fs::remove_file(filler).unwrap();
    let (code, err) = run_matrix(&m, &out, &shm, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        files(&out) == after,
        "the run after the space was freed left another directory"
    );
}

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab; root for the tmpfs mounts): cargo xtask test runs it"]
fn a_run_directory_filesystem_that_fills_under_the_server_fails_its_cell_by_name_and_resumes() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch_dir();
    let m = one_cell_matrix(dir.path(), "full-disk");
    let plan = xtask::matrix::load(&m).unwrap();
    // room for the preflight's estimate of the run directories
    let fs = Tmpfs::mount(&dir.path().join("shmfs"), "3G");
    let shm = fs.0.join("runs");
    let out = dir.path().join("out");

    // fill it as the server starts: before its redo log is preallocated
    // InnoDB says "error 28"; after it the server may say nothing (its
    // error log is on the full filesystem) and may wait for room up to the
    // bootstrap's deadline: either way the failure names the filesystem
    let mut tool = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args([
            "matrix",
            m.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .env("INNODB_LAB_SHM", &shm)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut seen = String::new();
    let mut filler = None;
    for line in BufReader::new(tool.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        eprintln!("    | {line}");
        if filler.is_none() && line.starts_with("==> server ") {
            filler = Some(fs.fill(0));
        }
        seen.push_str(&line);
        seen.push('\n');
    }
    let code = tool.wait().unwrap().code();
    let filler = filler.unwrap_or_else(|| panic!("no server started:\n{seen}"));
    assert_eq!(code, Some(1), "a failed cell makes exit status 1:\n{seen}");
    let results = xtask::results::read_results(&out).unwrap();
    assert_eq!(results.len(), 1, "{results:#?}");
    let failure = results[0].failure.as_ref().expect("the cell failed");
    assert!(
        failure
            .message
            .contains(&format!("the filesystem of {}", shm.display()))
            && failure.message.contains(" ran out of room ("),
        "the failure does not name the full filesystem: {failure}"
    );
    nothing_half_written(&out, "after the failure");

    // space freed: the same command runs the cell again and completes
    std::fs::remove_file(filler).unwrap();
    let (code, err) = run_matrix(&m, &out, &shm, &[]);
    assert_eq!(code, Some(0), "{err}");
    let problems = xtask::soak::checks::results_problems(&plan, &out);
    assert!(problems.is_empty(), "{problems:#?}");
    // no run directory is left on the filesystem that filled
    let left: Vec<_> = std::fs::read_dir(&shm)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "run directories left: {left:?}");
}
