//! Shards and their merge, on saved results (no server): the mdev-mini
//! fixture split the way `--shard 1/2` and `--shard 2/2` split its matrix,
//! each half as if another host had run it, merged back with
//! `results::merge`. The merged report must compare exactly what the
//! whole run compares, name both hosts, and never compare across hosts.

use std::path::{Path, PathBuf};
use xtask::decide::analysis::{self, Analysis};
use xtask::matrix::{Matrix, Shard, TreeEntry};
use xtask::record::RunResult;
use xtask::record::{Threads, Workload};
use xtask::report;
use xtask::results::{self, merge, Manifest};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mdev-mini")
}

fn render(dir: &Path) -> String {
    let results = results::read_results(dir).unwrap();
    let manifest = Manifest::read_or_derive(dir, &results).unwrap();
    let files = report::render(
        &Analysis::new(manifest, &results),
        &report::ticket::Beside::default(),
    )
    .unwrap();
    files.into_iter().find(|(n, _)| n == "report.md").unwrap().1
}

/// The rows of the report's QPS comparison table.
fn comparison_rows(md: &str) -> Vec<String> {
    md.lines()
        .skip_while(|l| !l.starts_with("## QPS against the baseline"))
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| l.starts_with("| 10.11.18"))
        .map(String::from)
        .collect()
}

/// A results directory holding `runs`, as host `host` would write it.
fn shard_dir(root: &Path, name: &str, host: &str, shard: &str, runs: &[RunResult]) -> PathBuf {
    let dir = root.join(name);
    for r in runs {
        let mut r = r.clone();
        r.host.hostname = host.into();
        r.write(&dir).unwrap();
    }
    let mut m: Manifest = serde_json::from_str(
        &std::fs::read_to_string(fixture().join(results::manifest::FILE)).unwrap(),
    )
    .unwrap();
    m.matrix_sha256 = Some("ab".repeat(32));
    m.shard = Some(shard.into());
    m.write(&dir).unwrap();
    dir
}

#[test]
fn shards_deal_out_whole_groups_the_same_way_every_time() {
    let mut w1 = Workload::new("points-covered-pk");
    w1.threads = Threads::List(vec![1, 2, 4]);
    let m = Matrix::new(
        "s",
        vec![TreeEntry {
            spec: "path:/x".parse().unwrap(),
            name: None,
            variants: vec!["base".into(), "gate".into()],
        }],
        vec![
            w1,
            Workload::new("update-index"),
            Workload::new("read-only"),
        ],
    );
    // run order: read-only 2t, points-covered-pk 1t, 2t, 4t, update-index 2t
    let groups = |s: &str| {
        let part = m.shard(s.parse::<Shard>().unwrap()).unwrap();
        xtask::workload::run_order(&part.workloads)
            .into_iter()
            .map(|(w, t)| format!("{} {t}", part.workloads[w].name))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        groups("1/2"),
        ["read-only 2", "points-covered-pk 2", "update-index 2"]
    );
    assert_eq!(
        groups("2/2"),
        ["points-covered-pk 1", "points-covered-pk 4"]
    );
    assert_eq!(groups("1/2"), groups("1/2"), "stable");
    // every variant of a group stays in its shard: the trees are untouched
    assert_eq!(
        m.shard("2/2".parse().unwrap()).unwrap().trees[0]
            .variants
            .len(),
        2
    );
    let e = m.shard("6/6".parse().unwrap()).unwrap_err().to_string();
    assert!(e.contains("5 comparison group(s)"), "{e}");
    for bad in ["0/2", "3/2", "1/0", "1", "a/2"] {
        assert!(bad.parse::<Shard>().is_err(), "{bad}");
    }
}

#[test]
fn merged_shards_compare_what_the_whole_run_compares_and_name_their_hosts() {
    let all = results::read_results(&fixture()).unwrap();
    let (pk, rest): (Vec<RunResult>, Vec<RunResult>) = all
        .iter()
        .cloned()
        .partition(|r| r.key.workload == "points-covered-pk");
    assert!(!pk.is_empty() && !rest.is_empty());
    let t = tempfile::tempdir().unwrap();
    let a = shard_dir(t.path(), "a", "host-a", "1/2", &pk);
    let b = shard_dir(t.path(), "b", "host-b", "2/2", &rest);
    let out = t.path().join("merged");
    let merged = merge::merge(&out, &[a.clone(), b.clone()], false).unwrap();
    assert_eq!(merged.runs, all.len());
    assert_eq!(merged.hosts["host-a"], ["1/2"]);
    assert_eq!(merged.hosts["host-b"], ["2/2"]);

    let whole = render(&fixture());
    let md = render(&out);
    let rows = comparison_rows(&md);
    assert!(!rows.is_empty());
    assert_eq!(rows, comparison_rows(&whole), "cell for cell");
    assert!(md.contains("## Hosts"), "{md}");
    assert!(
        md.contains("| `host-a` | points-covered-pk 1t, points-covered-pk 2t |"),
        "{md}"
    );
    assert!(md.contains("| `host-b` | update-index 2t |"), "{md}");
    // validate reads merged results like any other, and answers what the
    // whole fixture answers (expected/report.md, threshold 5%, 4 or 5 runs a
    // side, so every cell is decided): gate is higher on points-covered-pk
    // 1t and 2t and within the threshold on update-index 2t, so no
    // regression; the workaround is 10% lower on update-index 2t, a
    // regression
    let validate = |candidate: &str| {
        xtask::validate::run(
            &format!("{}:base", out.display()),
            &format!("{}:{candidate}", out.display()),
            None,
            xtask::dims::Metric::Qps,
        )
        .unwrap()
    };
    assert_eq!(validate("gate"), xtask::validate::NO_REGRESSION);
    assert_eq!(validate("workaround"), xtask::validate::REGRESSION);

    // refused: another matrix file, a cell twice
    let mut m: Manifest =
        serde_json::from_str(&std::fs::read_to_string(b.join("matrix.json")).unwrap()).unwrap();
    m.matrix_sha256 = Some("cd".repeat(32));
    m.write(&b).unwrap();
    let e = merge::merge(&t.path().join("m2"), &[a.clone(), b.clone()], false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("refused") && e.contains(&"cd".repeat(32)), "{e}");
    merge::merge(&t.path().join("m3"), &[a.clone(), b], true).unwrap();
    let twice = shard_dir(t.path(), "c", "host-c", "1/2", &pk[..1]);
    let e = merge::merge(&t.path().join("m4"), &[a, twice], false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("disjoint cells"), "{e}");
}

#[test]
fn runs_of_different_hosts_are_never_compared() {
    let all = results::read_results(&fixture()).unwrap();
    // gate's runs from another host than base's, in the same group
    let moved: Vec<RunResult> = all
        .iter()
        .cloned()
        .map(|mut r| {
            if r.key.variant == "gate" {
                r.host.hostname = "elsewhere".into();
            }
            r
        })
        .collect();
    let manifest = Manifest::read_or_derive(&fixture(), &all).unwrap();
    let a = Analysis::new(manifest, &moved);
    let gate: Vec<_> = a
        .comparisons
        .iter()
        .filter(|(c, _)| c.variant == "gate")
        .collect();
    assert!(!gate.is_empty());
    for (_, c) in gate {
        assert_eq!(c.verdict, analysis::Decision::Undecided);
        assert!(c.why.contains("different hosts"), "{}", c.why);
    }
}

/// A setting that only one shard's command line allowed (`--allow-setting`)
/// still warns in the merged report.
#[test]
fn a_setting_one_shard_allowed_warns_in_the_merged_report() {
    let all = results::read_results(&fixture()).unwrap();
    let (pk, rest): (Vec<RunResult>, Vec<RunResult>) = all
        .iter()
        .cloned()
        .partition(|r| r.key.workload == "points-covered-pk");
    let t = tempfile::tempdir().unwrap();
    let a = shard_dir(t.path(), "a", "host-a", "1/2", &pk);
    let b = shard_dir(t.path(), "b", "host-b", "2/2", &rest);
    let mut m: Manifest =
        serde_json::from_str(&std::fs::read_to_string(b.join("matrix.json")).unwrap()).unwrap();
    m.allowed_settings = vec!["innodb-undo-directory".into()];
    m.write(&b).unwrap();
    let out = t.path().join("merged");
    merge::merge(&out, &[a, b], false).unwrap();
    let merged: Manifest =
        serde_json::from_str(&std::fs::read_to_string(out.join("matrix.json")).unwrap()).unwrap();
    assert_eq!(merged.allowed_settings, ["innodb-undo-directory"]);
    let md = render(&out);
    assert!(
        md.contains("**Warning**: these runs set options the tool refuses in a matrix file")
            && md.contains("`innodb-undo-directory`"),
        "{md}"
    );
}
