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

/// Runs that a slow spell of the host moves together: within one results
/// directory, where the matrix interleaved them by repetition, the pairs
/// decide what the two samples compared as strangers cannot; the same
/// runs in two directories are not paired.
#[test]
fn interleaved_runs_are_compared_in_pairs() {
    let t = tempfile::tempdir().unwrap();
    let one = dir(t.path(), "one");
    // the host's spells: a repetition runs 25% slower or 20% faster
    let host = [1.0, 0.75, 1.2, 0.9, 1.1, 0.8, 1.15, 0.95];
    let base: Vec<f64> = host.iter().map(|h| 1000.0 * h).collect();
    // within each repetition fixed is 1-3% faster
    let own = [1.01, 1.03, 1.02, 1.01, 1.03, 1.02, 1.01, 1.02];
    let fixed: Vec<f64> = base.iter().zip(own).map(|(b, o)| b * o).collect();
    let cell = |v| ("10.11.18", v, "points-covered-pk", 2);
    write_cell(Path::new(&one), "m", cell("base"), &base, 30.0);
    write_cell(Path::new(&one), "m", cell("fixed"), &fixed, 0.0);
    let (code, text) = validate(&format!("{one}:base"), &format!("{one}:fixed"), &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("(paired bootstrap, nominal 95%)"), "{text}");
    // the same runs in two directories: strangers, compared unpaired
    let (b, c) = (dir(t.path(), "b"), dir(t.path(), "c"));
    write_cell(Path::new(&b), "m", cell("base"), &base, 30.0);
    write_cell(Path::new(&c), "m", cell("fixed"), &fixed, 0.0);
    let (code, text) = validate(&format!("{b}:base"), &format!("{c}:fixed"), &[]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("(bootstrap, nominal 95%)") && !text.contains("(paired"),
        "{text}"
    );
    assert!(text.contains("runs a side would decide it"), "{text}");
}

/// Pairs are the repetitions where both cells were counted, and only
/// when every repetition's runs came after the earlier repetitions' runs.
#[test]
fn pairs_need_interleaved_runs_and_drop_a_busy_run_as_a_pair() {
    use xtask::decide::analysis::Analysis;
    use xtask::record::CellKey;
    use xtask::results::Manifest;
    let key = |v: &str, rep| CellKey::new("10.11.18", v, "points-covered-pk", 2, rep);
    let mut results = Vec::new();
    for rep in 1..=7 {
        // repetition 4 of fixed ran on a busy host
        let busy = (rep == 4).then_some(1.5);
        results.push(common::run("m", key("base", rep), 1000.0, 30.0, Some(0.02)));
        results.push(common::run(
            "m",
            key("fixed", rep),
            1100.0,
            0.0,
            busy.or(Some(0.02)),
        ));
    }
    let manifest = Manifest::derive(&results);
    let a = Analysis::new(manifest.clone(), &results);
    let (cell, base) = (key("fixed", 1).cell(), key("base", 1).cell());
    let ratios = a
        .pair_ratios(&cell, &base, xtask::dims::Metric::Qps)
        .unwrap();
    assert_eq!(ratios.len(), 6, "{ratios:?}");
    assert!(ratios.iter().all(|r| (r - 1.1).abs() < 1e-9), "{ratios:?}");
    let c = a.compare_cells(&cell, &base, xtask::dims::Metric::Qps);
    assert_eq!(c.pairs, Some(6));
    assert!(c.ratio_interval.unwrap().method.paired());
    // base's repetitions all ran before fixed's: not interleaved
    for r in results.iter_mut().filter(|r| r.key.variant == "fixed") {
        r.started_unix += 100;
    }
    let a = Analysis::new(manifest, &results);
    assert_eq!(a.pair_ratios(&cell, &base, xtask::dims::Metric::Qps), None);
    let c = a.compare_cells(&cell, &base, xtask::dims::Metric::Qps);
    assert_eq!(
        (c.pairs, c.ratio_interval.unwrap().method.paired()),
        (None, false)
    );
}

/// On the committed release run: QPS cannot decide "no slower" on this
/// host, instructions per query decide "no costlier" on every workload;
/// a rise of instructions is what a regression of that metric means.
#[test]
fn the_release_run_is_undecided_on_qps_and_passes_on_instructions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/release-11.8-on-11.8.6");
    let side = |v: &str| format!("{}:{v}", root.display());
    let (code, text) = validate(&side("base"), &side("fixed"), &[]);
    assert_eq!(code, 2, "{text}");
    let (code, text) = validate(
        &side("base"),
        &side("fixed"),
        &["--metric", "instructions_per_query"],
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("lies below the allowed +1%"), "{text}");
    assert_eq!(text.matches("| 4 vs 4 |").count(), 8, "{text}");
    // the other way round fixed is the baseline and base does more work:
    // at a threshold below base's extra work that is a regression
    let (code, text) = validate(
        &side("fixed"),
        &side("base"),
        &["--metric", "instructions_per_query", "--threshold", "0.5"],
    );
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("significantly worse"), "{text}");
    let (code, text) = validate(&side("base"), &side("fixed"), &["--metric", "qpss"]);
    assert_eq!(code, 3, "{text}");
    assert!(text.contains("unknown metric `qpss`"), "{text}");
}
