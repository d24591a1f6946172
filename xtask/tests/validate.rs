//! `cargo xtask validate` on results written for the test: its exit
//! status is the answer (0 no regression, 1 regression, 2 undecided,
//! 3 error).

// This test drives the built tool (or a script) from outside, as a shell
// would, so it uses std, not the tool's runner (which would install the
// tool's own signal handling into the test harness).
#![allow(clippy::disallowed_methods)]

mod common;

use common::write_cell;
use std::path::Path;

fn validate(base: &str, cand: &str, extra: &[&str]) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("validate")
        .args([base, cand])
        .args(extra)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap(), text)
}

const BASE: [f64; 5] = [1000.0, 1010.0, 990.0, 1005.0, 995.0];

fn dir(root: &Path, name: &str) -> String {
    root.join(name).display().to_string()
}

#[test]
fn a_planted_regression_exits_1() {
    let t = tempfile::tempdir().unwrap();
    let (b, c) = (dir(t.path(), "base"), dir(t.path(), "cand"));
    write_cell(
        Path::new(&b),
        "m",
        ("10.11.18", "base", "points-covered-pk", 2),
        &BASE,
        30.0,
    );
    write_cell(
        Path::new(&b),
        "m",
        ("10.11.18", "base", "read-write", 2),
        &BASE,
        30.0,
    );
    write_cell(
        Path::new(&c),
        "m",
        ("10.11.18", "base", "points-covered-pk", 2),
        &BASE,
        30.0,
    );
    // 15% slower on one workload
    let slower: Vec<f64> = BASE.iter().map(|q| q * 0.85).collect();
    write_cell(
        Path::new(&c),
        "m",
        ("10.11.18", "base", "read-write", 2),
        &slower,
        30.0,
    );
    let (code, text) = validate(&b, &c, &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("| 10.11.18 | read-write | 2 | 5 vs 5 |") && text.contains("-15.0%"),
        "{text}"
    );
    assert!(
        text.contains("| 10.11.18 | points-covered-pk | 2 | 5 vs 5 |"),
        "the table lists every common cell: {text}"
    );
    // beyond a 20% threshold it is no regression
    let (code, text) = validate(&b, &c, &["--threshold", "20"]);
    assert_eq!(code, 0, "{text}");
}

#[test]
fn base_against_itself_exits_0() {
    let t = tempfile::tempdir().unwrap();
    let b = dir(t.path(), "r");
    write_cell(
        Path::new(&b),
        "m",
        ("10.11.18", "base", "points-covered-pk", 2),
        &BASE,
        30.0,
    );
    write_cell(
        Path::new(&b),
        "m",
        ("10.11.18", "gate", "points-covered-pk", 2),
        &[1200.0; 5],
        0.0,
    );
    let (code, text) = validate(&format!("{b}:base"), &format!("{b}:base"), &[]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("+0.0%")
            && text.contains(
                "no regression: every cell's 95% interval of the change lies above -5% (exit 0)"
            ),
        "{text}"
    );
    // a directory with two variants must be narrowed: an error is 3
    let (code, text) = validate(&b, &b, &[]);
    assert_eq!(code, 3, "{text}");
    assert!(text.contains("several variants (base, gate)"), "{text}");
}

/// "No regression" is non-inferiority: a median a little higher whose
/// interval reaches far below -threshold is undecided, not a pass.
#[test]
fn a_small_gain_with_a_wide_interval_is_undecided() {
    let t = tempfile::tempdir().unwrap();
    let (b, c) = (dir(t.path(), "base"), dir(t.path(), "cand"));
    let cell = ("10.11.18", "base", "update-index", 2);
    write_cell(
        Path::new(&b),
        "m",
        cell,
        &[1000.0, 1100.0, 900.0, 1050.0, 950.0],
        30.0,
    );
    write_cell(
        Path::new(&c),
        "m",
        cell,
        &[1040.0, 1150.0, 850.0, 1100.0, 1000.0],
        30.0,
    );
    let (code, text) = validate(&b, &c, &[]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("+4.0%")
            && text
                .contains("(Hodges-Lehmann, exact 96.8%), reaches across the allowed -5%; about ")
            && text.contains(" runs a side would decide it"),
        "{text}"
    );
    // 5 against 5: 1 - 2 P(U <= 2) = 1 - 8/252; the same runs, held to a
    // 30% drop, are no regression
    let (code, text) = validate(&b, &c, &["--threshold", "30"]);
    assert_eq!(code, 0, "{text}");
}

#[test]
fn too_few_runs_exit_2() {
    let t = tempfile::tempdir().unwrap();
    let (b, c) = (dir(t.path(), "base"), dir(t.path(), "cand"));
    write_cell(
        Path::new(&b),
        "m",
        ("10.11.18", "base", "points-covered-pk", 2),
        &BASE[..3],
        30.0,
    );
    // half the QPS, but 3 runs against 3 can never give p < 0.05
    write_cell(
        Path::new(&c),
        "m",
        ("10.11.18", "base", "points-covered-pk", 2),
        &[500.0, 505.0, 495.0],
        30.0,
    );
    let (code, text) = validate(&b, &c, &[]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("cannot give p below 0.100"), "{text}");
    let (code, text) = validate(&b, &dir(t.path(), "nothing"), &[]);
    assert_eq!(code, 3, "{text}");
}

#[test]
fn a_usage_error_exits_3_not_undecided() {
    // clap's own status would be 2, which a script reads as "undecided"
    let (code, text) = validate("a", "b", &["--no-such-flag"]);
    assert_eq!(code, 3, "{text}");
    assert!(text.contains("--no-such-flag"), "{text}");
    let (code, text) = validate("a", "b", &["--threshold", "five"]);
    assert_eq!(code, 3, "{text}");
}
