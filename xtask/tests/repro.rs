//! `cargo xtask repro` writes a reproduction a developer runs without this
//! tool; here its run.sh runs on our real 10.11.18 base and fixed builds,
//! as root with the servers as innodb-lab, and gives back the report's own
//! figures of hit-ratio-turnover's 7 s cell (pareto-rate-250): each side
//! near its median there, and the fix's loss.

// the tool and the script are the children under test, run as a user would
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::Command;

const TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

/// The mariadbd of a variant's build (made, or reused from the cache).
fn mariadbd(variant: &str) -> PathBuf {
    let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["build", "--tree", TREE, "--variant", variant])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let build: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    PathBuf::from(build["mariadbd"].as_str().unwrap())
}

/// The figure after `prefix` on the line that starts with it.
fn figure(out: &str, prefix: &str) -> f64 {
    let line = out
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line:\n{out}"));
    line[prefix.len()..]
        .trim_start()
        .split(['%', ' '])
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no figure in `{line}`"))
}

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn the_reproduction_script_gives_the_reports_figures_on_real_builds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let report = root.join("reports/hit-ratio-turnover");
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("repro");
    let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["repro", report.to_str().unwrap()])
        .args(["--tree", "10.11.18", "--workload", "pareto-rate-250"])
        .args(["--sides", "base,fixed", "--out", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (base, fixed) = (mariadbd("base"), mariadbd("fixed"));
    let run = Command::new(dir.join("run.sh"))
        .arg(&base)
        .arg(&fixed)
        .arg("1")
        .env("REPRO_USER", "innodb-lab")
        // nothing of the tool's environment reaches the script
        .env_remove("INNODB_LAB_CACHE")
        .env_remove("INNODB_LAB_SHM")
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    eprintln!("{said}");
    assert!(run.status.success(), "{said}");
    let env = std::fs::read_to_string(dir.join("cell.env")).unwrap();
    let reported = |key: &str| -> f64 {
        env.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}='")))
            .and_then(|v| v.trim_end_matches('\'').parse().ok())
            .unwrap_or_else(|| panic!("no {key} in cell.env:\n{env}"))
    };
    let (a, b) = (
        figure(&said, "median base:"),
        figure(&said, "median fixed:"),
    );
    // the report's runs of this cell lie within 0.39 points of each other;
    // one run a side here, beside other suites on two cores
    assert!((a - reported("REPORT_A")).abs() <= 0.6, "base {a}\n{said}");
    assert!((b - reported("REPORT_B")).abs() <= 0.6, "fixed {b}\n{said}");
    // the loss the report found (-1.66 points), four times the margin
    let difference = figure(&said, "difference fixed less base:");
    assert!(difference <= -0.8, "{said}");
    assert!((difference - (b - a)).abs() < 0.011, "{said}");
    assert!(said.contains("wall time: "), "{said}");
    // the servers are gone with their datadirs
    let left: Vec<_> = std::fs::read_dir("/dev/shm")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("repro."))
        .collect();
    assert!(left.is_empty(), "left under /dev/shm: {left:?}");
}
