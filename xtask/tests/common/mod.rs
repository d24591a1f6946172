//! Results written for tests: run files with chosen numbers, no server.
#![allow(dead_code)]

pub mod base_build;
pub mod results_dir;

use std::path::Path;
use xtask::dims::Step;
use xtask::host::Host;
use xtask::record::Tree;
use xtask::record::{CellKey, Failure, RunResult, SCHEMA_VERSION};
use xtask::record::{Diagnostic, Outcome, Workload};
use xtask::record::{Measured, OtherCpu, SysbenchReport};

pub fn host() -> Host {
    Host {
        hostname: "fixture".into(),
        cores: 2,
        memory_bytes: 24 << 30,
        kernel: "6.1.0".into(),
        cpu_model: "Test CPU".into(),
    }
}

/// One run of `key` with this QPS and pages made young per query; the
/// buf_pool.mutex acquisitions follow the pages made young, as they do.
pub fn run(
    matrix: &str,
    key: CellKey,
    qps: f64,
    young: f64,
    other_cores: Option<f64>,
) -> RunResult {
    let queries = (qps * 10.0) as u64;
    let measured = Measured {
        sysbench: SysbenchReport {
            queries,
            qps,
            transactions: queries,
            tps: qps,
            p95_ms: 1000.0 / qps,
            avg_ms: 500.0 / qps,
            seconds: 10.0,
            ignored_errors: 0,
        },
        pages_made_young: (young * queries as f64) as u64,
        pages_made_young_per_query: young,
        read_requests_per_query: 110.0,
        cs_per_query: 1.0,
        cpu_ms_per_query: 2000.0 / qps,
        other_cpu: other_cores.map(|c| OtherCpu {
            cores_busy: c,
            share: c / 2.0,
            wall_seconds: 10.0,
            host_busy_seconds: 10.0 * (c + 1.8),
            server_cpu_seconds: 14.0,
            sysbench_cpu_seconds: 4.0,
        }),
        ..Default::default()
    };
    let diagnostic = Diagnostic {
        measured: Measured {
            buf_pool_mutex_per_query: Some(young + 0.01),
            buf_pool_mutex_wait_us_per_query: Some(young / 50.0),
            ..measured.clone()
        },
        buf_pool_mutex_acquisitions: Some(((young + 0.01) * queries as f64) as u64),
        buf_pool_mutex_wait_ms: Some(1.0),
    };
    let mut workload = Workload::new(&key.workload);
    if key.workload == "points-covered-pk" {
        workload.threads = xtask::record::Threads::List(vec![1, 2]);
    }
    RunResult {
        schema_version: SCHEMA_VERSION,
        matrix: matrix.into(),
        failure: None,
        tree_info: Some(Tree {
            spec: "debian:mariadb=1:10.11.18-0+deb12u1".into(),
            id: "6aafdb3a4c234d00002d04681d92ef4a742df440".into(),
            src: "/cache/trees/x".into(),
            version: "10.11.18".into(),
            series: xtask::dims::Series::V10_11,
            has_upstream_fix: false,
            package: None,
        }),
        build: None,
        variant_settings: if key.variant == "workaround" {
            [("innodb_old_blocks_time".to_string(), "2147483647".to_string())].into()
        } else {
            Default::default()
        },
        my_cnf: None,
        my_cnf_text: Some(format!(
            "[mariadbd]\ndatadir=/dev/shm/innodb-lab/{}-{}-rep{}-1234/data\ninnodb_buffer_pool_size=5G\n{}",
            key.tree,
            key.variant,
            key.repetition,
            if key.variant == "workaround" { "innodb_old_blocks_time=2147483647\n" } else { "" }
        )),
        workload_def: workload,
        host: host(),
        tool_revision: "0123456789abcdef0123456789abcdef01234567".into(),
        started_unix: 1_780_000_000 + key.repetition as u64,
        wall_seconds: 30.0,
        data_phases: Vec::new(),
        outcome: Some(Outcome {
            threads: Some(key.threads),
            sysbench_commands: vec![format!(
                "sysbench inlist_select.lua --mysql-socket=/dev/shm/innodb-lab/x-{}/mariadbd.sock --threads={} run",
                key.repetition, key.threads
            )],
            measured: Some(measured),
            diagnostic: Some(diagnostic),
            ..Default::default()
        }),
        clean_shutdown: Some(true),
        key,
    }
}

/// A build record for `r`: its own key per variant, with `patch` (a file
/// name under patches/10.11/) when given.
pub fn with_build(mut r: RunResult, patch: Option<&str>) -> RunResult {
    use xtask::record::{Build, BuildKey, Patch};
    let patch = patch.map(|f| Patch {
        file: format!("patches/10.11/{f}").into(),
        sha256: format!("sha-of-{f}"),
        bytes: Vec::new(),
    });
    r.build = Some(Build {
        key: BuildKey {
            tree_id: "6aafdb3a4c234d00002d04681d92ef4a742df440".into(),
            patch_sha256: patch.as_ref().map(|p| p.sha256.clone()),
            source_tree: None,
            cmake_options: vec!["-DCMAKE_BUILD_TYPE=RelWithDebInfo".into()],
            compiler: "gcc 12.2.0".into(),
            repairs: Vec::new(),
        },
        key_hash: format!(
            "build-of-{}",
            patch.as_ref().map_or("base", |_| r.key.variant.as_str())
        ),
        tree_spec: "debian:mariadb=1:10.11.18-0+deb12u1".into(),
        tree_version: "10.11.18".into(),
        variant: r.key.variant.clone(),
        patch,
        cherry_pick: None,
        src: "/cache/src".into(),
        build: "/cache/build".into(),
        engine: xtask::dims::Engine::MariaDb,
        mariadbd: "/cache/build/sql/mariadbd".into(),
        build_type: Default::default(),
        repairs_applied: Vec::new(),
        checkout_seconds: 1.0,
        configure_seconds: 1.0,
        configure_preloaded: false,
        make_seconds: 1.0,
        ccache: Default::default(),
        reused: true,
    });
    r
}

pub fn failed(matrix: &str, key: CellKey) -> RunResult {
    let mut r = run(matrix, key, 1.0, 0.0, None);
    r.outcome = None;
    r.failure = Some(Failure {
        step: Step::Measured,
        message: "phase `measured`: mariadbd died (signal: 11)".into(),
        error_log_tail: Some("2026-11-30  7:00:00 0 [ERROR] mariadbd got signal 11 ;".into()),
    });
    r
}

/// Writes `qps[i]` as repetition i+1 of (tree, variant, workload, threads).
pub fn write_cell(
    out: &Path,
    matrix: &str,
    cell: (&str, &str, &str, u32),
    qps: &[f64],
    young: f64,
) {
    for (i, q) in qps.iter().enumerate() {
        let key = CellKey::new(cell.0, cell.1, cell.2, cell.3, i as u32 + 1);
        run(matrix, key, *q, young, Some(0.02)).write(out).unwrap();
    }
}

/// A small matrix's results with everything a report shows: a control,
/// a thread list, a busy run, a failed run, a regression and questions.
pub fn write_mdev_mini(out: &Path) {
    use xtask::results::question::{Kind, Question};
    use xtask::results::Manifest;
    let m = "mdev-mini";
    let q = |name: &str, kind: Kind, metric: &str, variant: &str| Question {
        name: name.into(),
        kind,
        metric: xtask::dims::Metric::parse(metric).expect("a known metric"),
        variant: variant.into(),
        against: None,
        value: None,
        baseline_above: None,
        baseline_below: None,
        threshold_pct: None,
        margin: None,
        workloads: Vec::new(),
        trees: Vec::new(),
        against_tree: None,
    };
    let manifest = Manifest {
        name: m.into(),
        description: "fixture: base (with control), gate and the workaround".into(),
        trees: vec!["10.11.18".into()],
        variants: ["base", "base-again", "gate", "workaround"]
            .map(String::from)
            .to_vec(),
        workloads: vec!["points-covered-pk".into(), "update-index".into()],
        repetitions: 5,
        control: Some("base".into()),
        threshold_pct: 5.0,
        busy_cpu_bound: 0.25,
        until_decided: None,
        file: Some("matrix/mdev-mini.toml".into()),
        matrix_sha256: None,
        shard: None,
        allowed_settings: Vec::new(),
        published: Vec::new(),
        questions: vec![
            Question {
                value: Some(0.001),
                baseline_above: Some(1.0),
                workloads: vec!["points-covered-pk".into()],
                ..q(
                    "gate removes promotion",
                    Kind::Below,
                    "pages_made_young_per_query",
                    "gate",
                )
            },
            Question {
                threshold_pct: Some(-5.0),
                ..q(
                    "the workaround does not lose throughput",
                    Kind::NoSlower,
                    "qps",
                    "workaround",
                )
            },
            q(
                "fixed is no slower than base on every workload",
                Kind::NoSlower,
                "qps",
                "fixed",
            ),
        ],
    };
    manifest.write(out).unwrap();
    let t = "10.11.18";
    let pk = "points-covered-pk";
    let ui = "update-index";
    write_cell(
        out,
        m,
        (t, "base", pk, 2),
        &[1000.0, 1010.0, 990.0, 1005.0],
        30.0,
    );
    // the fifth base run shared the host with a compiler
    run(m, CellKey::new(t, "base", pk, 2, 5), 600.0, 30.0, Some(1.2))
        .write(out)
        .unwrap();
    write_cell(
        out,
        m,
        (t, "base-again", pk, 2),
        &[1002.0, 998.0, 1008.0, 992.0, 1001.0],
        30.0,
    );
    write_cell(
        out,
        m,
        (t, "gate", pk, 2),
        &[1100.0, 1110.0, 1090.0, 1105.0, 1095.0],
        0.0,
    );
    write_cell(
        out,
        m,
        (t, "workaround", pk, 2),
        &[1003.0, 1013.0, 993.0, 1008.0, 998.0],
        0.0,
    );
    write_cell(
        out,
        m,
        (t, "base", pk, 1),
        &[520.0, 515.0, 525.0, 518.0, 522.0],
        29.0,
    );
    write_cell(
        out,
        m,
        (t, "base-again", pk, 1),
        &[521.0, 516.0, 519.0, 524.0, 517.0],
        29.0,
    );
    write_cell(
        out,
        m,
        (t, "gate", pk, 1),
        &[560.0, 565.0, 555.0, 562.0, 558.0],
        0.0,
    );
    write_cell(
        out,
        m,
        (t, "workaround", pk, 1),
        &[519.0, 523.0, 517.0, 521.0, 516.0],
        0.0,
    );
    write_cell(
        out,
        m,
        (t, "base", ui, 2),
        &[800.0, 810.0, 790.0, 805.0, 795.0],
        2.0,
    );
    write_cell(
        out,
        m,
        (t, "base-again", ui, 2),
        &[806.0, 796.0, 801.0, 809.0, 792.0],
        2.0,
    );
    write_cell(
        out,
        m,
        (t, "gate", ui, 2),
        &[802.0, 799.0, 807.0, 791.0, 804.0],
        0.0,
    );
    failed(m, CellKey::new(t, "gate", ui, 2, 3))
        .write(out)
        .unwrap();
    write_cell(
        out,
        m,
        (t, "workaround", ui, 2),
        &[720.0, 728.0, 711.0, 724.0, 716.0],
        0.0,
    );
}

/// Whether process `pid` exists and is not a zombie (an exited child its
/// parent has not reaped yet).
pub fn alive_pid(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            !s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

/// Runs `m`, which must succeed in every run (failures are printed with
/// their error-log tails first); returns the output directory and results.
pub fn run_all_successful(
    m: &xtask::matrix::Matrix,
) -> (tempfile::TempDir, Vec<xtask::record::RunResult>) {
    let (out, failed) = run_in_tempdir(m);
    let results = xtask::results::read_results(out.path()).unwrap();
    for r in &results {
        if let Some(f) = &r.failure {
            eprintln!("{} {f}\n{:?}", r.key, f.error_log_tail);
        }
    }
    assert_eq!(failed, 0, "every run must succeed");
    (out, results)
}

/// Runs `m` into a fresh output directory; returns it and the failed count.
pub fn run_in_tempdir(m: &xtask::matrix::Matrix) -> (tempfile::TempDir, usize) {
    let out = tempfile::tempdir().unwrap();
    let opts = xtask::matrix::RunOptions {
        force: true,
        ..xtask::matrix::RunOptions::new(out.path().to_path_buf())
    };
    let failed = xtask::matrix::run(m, &opts).unwrap();
    (out, failed)
}

/// The text of `first` (paths from the repository root), then of every
/// Markdown file of docs/ in name order, joined: where the tests look for
/// what the documentation says.
pub fn documentation(first: &[&str]) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files: Vec<std::path::PathBuf> = first.iter().map(|f| root.join(f)).collect();
    let mut docs: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect::<Vec<_>>()
        .join("\n")
}
