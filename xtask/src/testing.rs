//! `cargo xtask test`: the README's test command. Runs each suite with its
//! output streamed (CI reads cargo's own closing lines) and prints how
//! long each stage took. Builds are keyed, so a variant is built once and
//! shared by every stage that needs it.

use crate::util::{human_duration, Command, Stage};
use anyhow::{bail, Context, Result};

/// The tree and the mtr tests the test command runs on its `fixed`
/// variant: MariaDB's own buffer pool tests and ours (mtr/suite/).
const MTR_TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";
const MTR_TESTS: &[&str] = &[
    "innodb.lab_lru_reuse",
    "innodb.flush",
    "innodb.purge",
    "innodb.innodb_buffer_pool_resize",
    "innodb.innodb_information_schema_buffer",
    "innodb.innodb_buffer_pool_dump_pct",
    "innodb.page_cleaner",
    "innodb.innodb-index",
];

/// Tests of MTR_TESTS that may skip themselves: innodb.innodb-index skips
/// itself ("Extra checkpoint") when a redo checkpoint falls inside its
/// no-checkpoint window, which fixed does now and then
/// (patches/10.11/fixed.md). Its skip is printed with its reason; any
/// other skip fails the stage.
const MTR_MAY_SKIP: &[&str] = &["innodb.innodb-index"];

/// (tree, patch variant) pairs that get an ffi check of their own: the
/// patches that change the decision rules or the layout the model checks
/// (our lazy-promotion port, the MDEV-41036 form of buf_page_peek_if_young).
const FFI_PATCH_CHECKS: &[(&str, &str)] = &[
    ("debian:mariadb=1:10.11.18-0+deb12u1", "fixed"),
    ("debian:mariadb=1:10.11.18-0+deb12u1", "mdev-41036"),
    ("debian:mariadb=1:11.8.6-0+deb13u1", "fixed"),
];

/// `cargo` arguments that run this tool's own subcommand `args`.
fn xtask(args: &[&str]) -> Vec<String> {
    ["run", "--quiet", "--release", "--package", "xtask", "--"]
        .iter()
        .chain(args)
        .map(|s| s.to_string())
        .collect()
}

/// `cargo test` arguments for one suite (`target`: `--lib`, or `--test`
/// and a file of xtask/tests/) with the tests on real parts included.
fn cargo_test(package: &str, target: &[&str]) -> Vec<String> {
    let mut args = vec!["test", "--release", "--package", package];
    args.extend(target);
    // the tests on real parts are ignored by a plain `cargo test`
    // (hermetic); this command runs them too. --nocapture: the end-to-end
    // tests build MariaDB; their progress (stage, elapsed time, last
    // build line) belongs in the CI log
    args.extend(["--", "--include-ignored", "--nocapture"]);
    args.into_iter().map(String::from).collect()
}

/// The integration suites of xtask (`xtask/tests/*.rs`), by name, in
/// the order cargo runs them.
fn xtask_suites() -> Result<Vec<String>> {
    let dir = crate::util::repo_root().join("xtask/tests");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "rs") {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                names.push(stem.to_string());
            }
        }
    }
    names.sort();
    Ok(names)
}

pub fn run_all() -> Result<()> {
    // mtr on the fixed variant: keep its results out of results/
    let mtr_dir = tempfile::tempdir()?;
    let mtr_out = mtr_dir.path().to_str().context("a UTF-8 temporary path")?;
    // the stages run under the cache lock this command holds, or under the
    // one its own parent holds for it (a wrapper such as flock)
    let holder = crate::environment::current()
        .lock_parent
        .map_or_else(|| std::process::id().to_string(), |p| p.to_string());
    let mut timings = Vec::new();
    let mut failed = Vec::new();
    for (label, args) in stages(mtr_out)? {
        let stage = Stage::start(&label);
        let status = Command::new("cargo")
            .args(args)
            .env(crate::environment::LOCK_PARENT, &holder)
            .status()?;
        timings.push((label.clone(), stage.done()));
        if !status.success() {
            failed.push(label);
        }
    }
    print_timings(&timings);
    // the closing line: suites (each a cargo test run or a check), not tests
    println!(
        "suites: {} passed, {} failed",
        timings.len() - failed.len(),
        failed.len()
    );
    if !failed.is_empty() {
        bail!("failed: {}", failed.join(", "));
    }
    Ok(())
}

/// Every stage of the test command, in order, as (label, cargo arguments):
/// one stage per suite, so that the timings say which suite is slow;
/// everything is compiled first, in a stage of its own. The mtr stage
/// writes its results to `mtr_out`.
fn stages(mtr_out: &str) -> Result<Vec<(String, Vec<String>)>> {
    let mut steps: Vec<(String, Vec<String>)> = vec![
        (
            "compile the tests".into(),
            [
                "test",
                "--release",
                "--workspace",
                "--exclude",
                "ffi",
                "--no-run",
            ]
            .map(String::from)
            .to_vec(),
        ),
        ("lru-model tests".into(), cargo_test("lru-model", &[])),
        (
            "xtask unit tests".into(),
            cargo_test("xtask", &["--lib", "--bins"]),
        ),
    ];
    for suite in xtask_suites()? {
        steps.push((
            format!("xtask suite {suite}"),
            cargo_test("xtask", &["--test", &suite]),
        ));
    }
    for tree in crate::tree::DEBIAN_TREES {
        steps.push((
            format!("ffi check {tree}"),
            xtask(&["ffi", "check", "--tree", tree]),
        ));
    }
    for (tree, variant) in FFI_PATCH_CHECKS {
        steps.push((
            format!("ffi check {tree} --variant {variant}"),
            xtask(&["ffi", "check", "--tree", tree, "--variant", variant]),
        ));
    }
    steps.push((
        "patch check (every patch on every Debian tree)".into(),
        xtask(&["patch", "check"]),
    ));
    let mut mtr = vec![
        "mtr",
        "--tree",
        MTR_TREE,
        "--variant",
        "fixed",
        "--all-pass",
        "--out",
        mtr_out,
    ];
    for t in MTR_MAY_SKIP {
        mtr.extend(["--may-skip", t]);
    }
    mtr.extend(MTR_TESTS);
    steps.push((
        format!("mtr on fixed of {MTR_TREE} (buffer pool tests and ours)"),
        xtask(&mtr),
    ));
    Ok(steps)
}

/// Each stage's time, then the three slowest.
fn print_timings(timings: &[(String, f64)]) {
    eprintln!("\ntest stage timings:");
    for (label, secs) in timings {
        eprintln!("  {:>9}  {label}", human_duration(*secs));
    }
    eprintln!("slowest stages:");
    for (label, secs) in slowest(timings, 3) {
        eprintln!("  {:>9}  {label}", human_duration(secs));
    }
}

/// The `n` stages that took longest, longest first.
fn slowest(timings: &[(String, f64)], n: usize) -> Vec<(String, f64)> {
    let mut all = timings.to_vec();
    all.sort_by(|a, b| b.1.total_cmp(&a.1));
    all.truncate(n);
    all
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_slowest_stages_come_longest_first() {
        let t = |l: &str, s: f64| (l.to_string(), s);
        let timings = [t("a", 3.0), t("b", 90.0), t("c", 0.1), t("d", 12.0)];
        assert_eq!(
            super::slowest(&timings, 3),
            [t("b", 90.0), t("d", 12.0), t("a", 3.0)]
        );
    }
}
