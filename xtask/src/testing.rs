//! `cargo xtask test`: the README's test command. Runs each suite with its
//! output streamed (CI reads cargo's own closing lines) and prints how
//! long each stage took.

use crate::util::{human_duration, Stage};
use anyhow::{bail, Result};

/// `cargo` arguments that run this tool's own subcommand `args`.
fn xtask(args: &[&str]) -> Vec<String> {
    ["run", "--quiet", "--release", "--package", "xtask", "--"]
        .iter()
        .chain(args)
        .map(|s| s.to_string())
        .collect()
}

pub fn run_all() -> Result<()> {
    let mut steps: Vec<(String, Vec<String>)> = vec![(
        "unit and end-to-end tests".into(),
        // --nocapture: the end-to-end tests build MariaDB; their progress
        // (stage, elapsed time, last build line) belongs in the CI log
        [
            "test",
            "--release",
            "--workspace",
            "--exclude",
            "ffi",
            "--",
            "--nocapture",
        ]
        .map(String::from)
        .to_vec(),
    )];
    for tree in crate::tree::DEBIAN_TREES {
        steps.push((
            format!("ffi check {tree}"),
            xtask(&["ffi", "check", "--tree", tree]),
        ));
    }
    steps.push((
        "patch check (every patch on both Debian trees)".into(),
        xtask(&["patch", "check"]),
    ));
    let mut timings = Vec::new();
    let mut failed = Vec::new();
    for (label, args) in steps {
        let stage = Stage::start(&label);
        let status = duct::cmd("cargo", &args).unchecked().run()?.status;
        timings.push((label.clone(), stage.done()));
        if !status.success() {
            failed.push(label);
        }
    }
    eprintln!("\ntest stage timings:");
    for (label, secs) in &timings {
        eprintln!("  {:>9}  {label}", human_duration(*secs));
    }
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
