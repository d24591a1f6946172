//! Every write of a small real matrix can fail, SQLite's way: the tool is
//! run once per write it makes, with that write made to fail
//! (`INNODB_LAB_FAIL_WRITE`, after the temporary file is written and
//! before the rename), and then run again without the fault.
//!
//! - The cell phase, from an empty results directory: after the failure
//!   no temporary file is left and every file present parses (none is
//!   half written); the next run resumes the directory to one successful
//!   result per planned cell and a summary of the whole plan.
//! - The report phase, from a directory whose cells are all done: after
//!   the failure every file is as it was before that run or as a run
//!   without the failure leaves it, and the next run leaves exactly what
//!   that run leaves.

#![allow(clippy::disallowed_methods)]

mod common;

use common::results_dir::{
    cells_only, each_file_as_before_or_after, files, nothing_half_written, one_cell_matrix,
    run_matrix, scratch_dir,
};
use std::path::Path;

/// The tool on the one-cell matrix, with write `fail` made to fail when
/// given.
fn matrix(m: &Path, out: &Path, shm: &Path, fail: Option<u64>) -> (Option<i32>, String) {
    let seam = fail.map(|n| (xtask::environment::FAIL_WRITE, n.to_string()));
    run_matrix(m, out, shm, seam.as_slice())
}

/// The run made to fail at write `n` failed for it, and said which.
fn failed_at(n: u64, code: Option<i32>, err: &str, what: &str) {
    assert_ne!(
        code,
        Some(0),
        "{what}: the failing write did not fail the run:\n{err}"
    );
    assert!(
        err.contains(&format!("write {n} of this process made to fail")),
        "{what}: the run did not fail at its write:\n{err}"
    );
}

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn every_write_of_a_small_matrix_can_fail_and_the_next_run_completes_it() {
    let dir = scratch_dir();
    let shm = dir.path().join("shm");
    let m = one_cell_matrix(dir.path(), "write-failures");
    let plan = xtask::matrix::load(&m).unwrap();
    let planned = xtask::matrix::plan::Plan::of(&plan).keys(&plan).len();

    // the cell phase: each write from the first on, until a failure comes
    // only after every cell's result is saved
    let mut complete = None;
    for n in 1..=40u64 {
        let out = dir.path().join(format!("cells-{n}"));
        let what = format!("cell phase, write {n}");
        let (code, err) = matrix(&m, &out, &shm, Some(n));
        assert_ne!(
            code,
            Some(0),
            "{what}: the run passed, so it made no such write before its result was saved:\n{err}"
        );
        failed_at(n, code, &err, &what);
        nothing_half_written(&out, &what);
        // a write of the server's own files fails its cell, which is saved
        // as failed: only successful results end the cell phase
        let saved =
            xtask::results::read_results(&out).map_or(0, |r| r.iter().filter(|r| r.ok()).count());
        let (code, err) = matrix(&m, &out, &shm, None);
        assert_eq!(code, Some(0), "{what}: the next run failed:\n{err}");
        let problems = xtask::soak::checks::results_problems(&plan, &out);
        assert!(problems.is_empty(), "{what}: {problems:#?}");
        if saved == planned {
            complete = Some((n, out));
            break;
        }
    }
    let (cell_writes, complete) = complete.expect("every cell was saved within 40 writes");
    assert!(cell_writes >= 2, "{cell_writes} writes before the report");

    // the report phase: from the cells alone, each write until a run
    // makes no such write
    let template = dir.path().join("template");
    cells_only(&complete, &template);
    let before = files(&template);
    let reference = dir.path().join("reference");
    cells_only(&complete, &reference);
    let (code, err) = matrix(&m, &reference, &shm, None);
    assert_eq!(code, Some(0), "the run on the cells alone:\n{err}");
    let after = files(&reference);
    let mut report_writes = 0;
    for n in 1..=100u64 {
        let out = dir.path().join(format!("report-{n}"));
        cells_only(&complete, &out);
        let what = format!("report phase, write {n}");
        let (code, err) = matrix(&m, &out, &shm, Some(n));
        if code == Some(0) {
            assert_eq!(files(&out), after, "{what}: a run without that write");
            break;
        }
        report_writes = n;
        failed_at(n, code, &err, &what);
        nothing_half_written(&out, &what);
        each_file_as_before_or_after(&files(&out), &before, &after, &what);
        let (code, err) = matrix(&m, &out, &shm, None);
        assert_eq!(code, Some(0), "{what}: the next run failed:\n{err}");
        assert!(
            files(&out) == after,
            "{what}: the next run left another directory"
        );
    }
    // the report, summary and charts were each written, so each failed once
    assert!(report_writes >= 5, "{report_writes} writes of the report");
    eprintln!("{cell_writes} writes to the last cell's result, {report_writes} of the report: each failed once");
}
