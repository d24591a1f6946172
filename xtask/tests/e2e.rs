//! End to end on real parts: Debian's MariaDB 10.11.18 source, our gate
//! patch, real builds (ccache shared), real servers on /dev/shm, real
//! sysbench load, counters read from the servers.
//!
//! It asserts the mechanism, never a time: after the arming phase, base
//! makes pages young on nearly every touch of an old page and takes
//! buf_pool.mutex for it; gate makes almost none (fewer than 1 per 1,000
//! queries: the change buffer can still call buf_page_make_young()
//! directly) and takes the mutex almost never. fixed (our port of the
//! MDEV-33966 lazy promotion) takes the mutex almost never on the access
//! path either; its pages are made young only by sweeps, which move each
//! flagged old block about once, so far fewer than one per query.

// This test drives the built tool (or a script) from outside, as a shell
// would, so it uses std, not the tool's runner (which would install the
// tool's own signal handling into the test harness).
#![allow(clippy::disallowed_methods)]

mod common;

use common::{run_all_successful, run_in_tempdir};
use xtask::dims::{Metric, ModelPolicy};
use xtask::matrix::{self, Matrix, RunOptions, TreeEntry};
use xtask::record::Workload;
use xtask::report;
use xtask::results;

const TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

/// The tests share the tree's builds and the machine's two cores: one at a
/// time (the first one to run builds base, the others reuse it).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serialized() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// One repetition of `workload` on `variants` of the tree. Pages made
/// young, mutex acquisitions per query and residency do not depend on what
/// else the host runs (QPS does, and reports flag busy runs): on a shared
/// machine every run counts here.
fn one_repetition(name: &str, variants: &[&str], workload: Workload) -> Matrix {
    let mut m = Matrix::new(
        name,
        vec![TreeEntry {
            spec: TREE.parse().unwrap(),
            name: Some("10.11.18".into()),
            variants: variants.iter().map(|v| v.to_string()).collect(),
        }],
        vec![workload],
    );
    m.repetitions = 1;
    m.busy_cpu_bound = 1e6;
    m
}

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn base_promotes_on_access_and_gate_and_fixed_do_not() {
    let _guard = serialized();
    let m = one_repetition(
        "e2e",
        &["base", "gate", "fixed"],
        Workload {
            // about 3,000 pages: well above the 512 that the old sublist needs
            tables: 4,
            table_size: 50_000,
            arm_seconds: 8,
            warmup_seconds: 2,
            measure_seconds: 5,
            diagnostic_seconds: 3,
            ..Workload::new("points-covered-pk")
        },
    );
    let (out, results) = run_all_successful(&m);

    // the rows of the summary.json the run wrote
    let summary: report::summary::Summary =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    let summary = summary.rows;
    let row = |variant: &str| {
        let r = summary
            .iter()
            .find(|r| r.variant == variant)
            .unwrap_or_else(|| panic!("no {variant} row"));
        (
            r.median.clone().expect("medians of a successful run"),
            r.total_queries,
            r.total_pages_made_young,
        )
    };
    // the fix's pages made young are sweep moves, and every run reads the
    // flush counters that say whether a sweep ran
    use xtask::results::sweeps::{Sweeps, YoungCounts};
    let counts = |variant: &str| {
        let r = summary.iter().find(|r| r.variant == variant).unwrap();
        (r.pages_made_young_counts, r.sweeps)
    };
    assert_eq!(counts("base"), (Some(YoungCounts::Promotions), None));
    let (fixed_counts, fixed_sweeps) = counts("fixed");
    assert_eq!(fixed_counts, Some(YoungCounts::SweepMoves));
    assert!(
        matches!(fixed_sweeps, Some(Sweeps::NoneRan | Sweeps::MayHaveRun)),
        "fixed's flush counters were not read: {fixed_sweeps:?}"
    );
    let (base, base_queries, _) = row("base");
    let (gate, gate_queries, gate_young) = row("gate");
    let (fixed, fixed_queries, fixed_young) = row("fixed");
    eprintln!("base: {base:?}\ngate: {gate:?}\nfixed: {fixed:?}");
    eprintln!(
        "pages made young in the measured run: gate {gate_young} in {gate_queries} queries, \
         fixed {fixed_young} in {fixed_queries} queries"
    );
    assert!(
        base_queries > 1000 && gate_queries > 1000 && fixed_queries > 1000,
        "too few queries to judge"
    );

    // base: most touches of an old page promote it (about 30 per query here)
    let base_young = base.get(Metric::PagesMadeYoungPerQuery).expect("measured");
    assert!(
        base_young > 5.0,
        "base made only {base_young} pages young per query"
    );
    // gate: fewer than 1 per 1,000 queries
    assert!(
        gate_young * 1000 < gate_queries,
        "gate made {gate_young} pages young in {gate_queries} queries"
    );
    // fixed: only sweeps make pages young; with no eviction they move each
    // flagged old block about once, far fewer than one per 100 queries
    assert!(
        fixed_young * 100 < fixed_queries,
        "fixed made {fixed_young} pages young in {fixed_queries} queries"
    );
    let base_mutex = base
        .get(Metric::BufPoolMutexPerQuery)
        .expect("base diagnostic pass");
    let gate_mutex = gate
        .get(Metric::BufPoolMutexPerQuery)
        .expect("gate diagnostic pass");
    let fixed_mutex = fixed
        .get(Metric::BufPoolMutexPerQuery)
        .expect("fixed diagnostic pass");
    assert!(
        base_mutex > 5.0,
        "base took buf_pool.mutex only {base_mutex} times per query"
    );
    assert!(
        gate_mutex < 0.1,
        "gate took buf_pool.mutex {gate_mutex} times per query"
    );
    // fixed: the access path never takes the mutex; the page cleaner's
    // batches take it a few times per second
    assert!(
        fixed_mutex < 0.01,
        "fixed took buf_pool.mutex {fixed_mutex} times per query"
    );

    // the builds shared ccache, and each patch changed what was compiled:
    // the variant's server is not base's. A reused build carries the ccache
    // figures of the make that produced it (build.json), so this holds on a
    // warm cache too; a build made again after its objects were cached
    // misses nothing, so misses are not what shows the patch.
    let server_of = |variant: &str| {
        let build = results
            .iter()
            .find(|r| r.key.variant == variant)
            .and_then(|r| r.build.clone())
            .unwrap();
        let bytes = std::fs::read(&build.mariadbd).unwrap();
        (build, bytes)
    };
    let (_, base_server) = server_of("base");
    for variant in ["gate", "fixed"] {
        let (build, server) = server_of(variant);
        assert!(
            build.ccache.hits > 0,
            "{variant} did not share ccache with base: {:?}",
            build.ccache
        );
        assert!(server != base_server, "{variant}'s server is base's");
    }
    for file in [
        "summary.json",
        "report.md",
        "report.jira",
        "matrix.json",
        "qps-change.svg",
    ] {
        assert!(out.path().join(file).exists(), "no {file}");
    }
    // the result carries its cell key and the data load of its server
    let base_run = results.iter().find(|r| r.key.variant == "base").unwrap();
    assert_eq!(base_run.key.threads, 2);
    assert!(
        base_run.data_phases.iter().any(|p| p.name == "prepare"),
        "{:?}",
        base_run.data_phases
    );
}

fn small_workload() -> Workload {
    Workload {
        tables: 2,
        table_size: 20_000,
        arm_seconds: 0,
        warmup_seconds: 0,
        measure_seconds: 1,
        diagnostic_seconds: 0,
        // no figure of these cells is read: the wait for an idle server
        // protects measurements, not what these tests assert
        idle_limit_seconds: 0,
        ..Workload::new("points-covered-pk")
    }
}

/// A server that cannot start fails its cell with the error log's tail;
/// the next cell of the matrix still runs.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_failed_server_is_recorded_and_the_matrix_goes_on() {
    let _guard = serialized();
    let broken: matrix::VariantDef =
        toml::from_str("settings = { innodb_buffer_pool_size = \"1Q\" }").unwrap();
    let mut m = one_repetition("e2e-failure", &["broken", "base"], small_workload());
    m.variants = [("broken".to_string(), broken)].into();
    let (out, failed) = run_in_tempdir(&m);
    assert_eq!(failed, 1);
    let results = results::read_results(out.path()).unwrap();
    let broken = results.iter().find(|r| r.key.variant == "broken").unwrap();
    let failure = broken.failure.as_ref().expect("the broken variant fails");
    // the bad option stops the server before it accepts connections
    assert!(
        matches!(
            failure.step,
            xtask::dims::Step::Bootstrap | xtask::dims::Step::Start
        ),
        "{failure}"
    );
    let tail = failure
        .error_log_tail
        .as_deref()
        .expect("the error log tail is kept");
    assert!(
        tail.contains("innodb-buffer-pool-size")
            || failure.message.contains("innodb-buffer-pool-size"),
        "the log tail or the message names the bad value's option: {failure}\n{tail}"
    );
    assert!(
        !failure.message.contains("error log tail"),
        "{}",
        failure.message
    );
    let base = results.iter().find(|r| r.key.variant == "base").unwrap();
    assert!(
        base.ok(),
        "base ran after the failed cell: {:?}",
        base.failure
    );
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains("## Failures") && md.contains("broken"));
}

/// A variant's string setting that could put files outside the run is
/// refused by what the built server says of the option (it takes a name),
/// before any server starts; a number, a switch and a reviewed enumeration
/// pass the same check.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_setting_that_names_a_directory_is_refused_by_the_servers_own_help() {
    let _guard = serialized();
    let escape = tempfile::tempdir().unwrap();
    let target = escape.path().join("undo-outside-the-run");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.toml");
    std::fs::write(
        &file,
        format!(
            "name = \"e2e-undo\"\nrepetitions = 1\n[[tree]]\nspec = \"{TREE}\"\nname = \"10.11.18\"\nvariants = [\"base\", \"tuned\"]\n\
             [[workload]]\nname = \"points-covered-pk\"\ntables = 1\ntable_size = 1000\narm_seconds = 0\nwarmup_seconds = 0\n\
             measure_seconds = 1\ndiagnostic_seconds = 0\n[variant.tuned]\nsettings = {{ innodb_old_blocks_time = 0, skip_innodb_adaptive_hash_index = true, sql_mode = \"ANSI\", \
             innodb_undo_directory = \"{}\" }}\n",
            target.display()
        ),
    )
    .unwrap();
    let m = matrix::load(&file).unwrap();
    let out = tempfile::tempdir().unwrap();
    let err = format!(
        "{:#}",
        matrix::run(&m, &RunOptions::new(out.path().to_path_buf())).unwrap_err()
    );
    assert!(
        err.contains(&format!("{}:16:", file.display()))
            && err
                .contains("`innodb_undo_directory` takes a string (`--innodb-undo-directory=name`"),
        "{err}"
    );
    for accepted in [
        "innodb_old_blocks_time",
        "skip_innodb_adaptive_hash_index",
        "sql_mode",
    ] {
        assert!(
            !err.contains(&format!("`{accepted}`")),
            "{accepted} refused: {err}"
        );
    }
    assert!(!target.exists(), "the directory was made");
    assert!(
        results::read_results(out.path()).unwrap().is_empty(),
        "no server ran"
    );

    // said on the command line, the option goes through, and the report
    // warns of it
    {
        // the server runs as another user: it must reach the directory
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir(&target).unwrap();
        std::fs::set_permissions(escape.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    let allowed = RunOptions {
        allowed_settings: vec!["innodb-undo-directory".into()],
        ..RunOptions::new(out.path().to_path_buf())
    };
    assert_eq!(matrix::run(&m, &allowed).unwrap(), 0);
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        md.contains("**Warning**: these runs set options the tool refuses in a matrix file")
            && md.contains("`innodb-undo-directory`"),
        "{md}"
    );
    let tuned = results::read_results(out.path())
        .unwrap()
        .into_iter()
        .find(|r| r.key.variant == "tuned")
        .unwrap();
    assert!(tuned.ok(), "{:?}", tuned.failure);

    // resumed without the flag: refused again, and the directory's
    // manifest keeps the setting its results were made with
    let err = format!(
        "{:#}",
        matrix::run(&m, &RunOptions::new(out.path().to_path_buf())).unwrap_err()
    );
    assert!(err.contains("innodb_undo_directory"), "{err}");
    let manifest: results::Manifest = serde_json::from_str(
        &std::fs::read_to_string(out.path().join(results::manifest::FILE)).unwrap(),
    )
    .unwrap();
    assert_eq!(manifest.allowed_settings, ["innodb-undo-directory"]);
}

/// A results directory is resumed only with what made it: run again as it
/// was, every cell is done and nothing runs; under the same variant name
/// with other settings the run refuses the directory and names the field;
/// `--force` runs the cell again.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_resumed_directory_reuses_only_cells_made_from_the_same_inputs() {
    let _guard = serialized();
    let settings = |value: &str| -> matrix::VariantDef {
        toml::from_str(&format!(
            "settings = {{ innodb_old_blocks_time = {value} }}"
        ))
        .unwrap()
    };
    let mut m = one_repetition("e2e-resume", &["tuned"], small_workload());
    m.variants = [("tuned".to_string(), settings("1000"))].into();
    let out = tempfile::tempdir().unwrap();
    let opts = RunOptions::new(out.path().to_path_buf());
    assert_eq!(matrix::run(&m, &opts).unwrap(), 0);
    let first = results::read_results(out.path()).unwrap();
    assert_eq!(first.len(), 1);
    let started = first[0].started_unix;

    // the same inputs: done, not run again
    assert_eq!(matrix::run(&m, &opts).unwrap(), 0);
    let again = results::read_results(out.path()).unwrap();
    assert_eq!(again[0].started_unix, started, "the cell ran again");

    // the same name, other settings: refused, with the field named
    m.variants = [("tuned".to_string(), settings("0"))].into();
    let err = format!("{:#}", matrix::run(&m, &opts).unwrap_err());
    assert!(
        err.contains("another variant settings") && err.contains("--force"),
        "{err}"
    );
    let kept = results::read_results(out.path()).unwrap();
    assert_eq!(
        kept[0].started_unix, started,
        "the refused run wrote nothing"
    );

    // --force: run again with the new settings
    let forced = RunOptions {
        force: true,
        ..RunOptions::new(out.path().to_path_buf())
    };
    assert_eq!(matrix::run(&m, &forced).unwrap(), 0);
    let redone = results::read_results(out.path()).unwrap();
    assert_eq!(
        redone[0]
            .variant_settings
            .get("innodb_old_blocks_time")
            .map(String::as_str),
        Some("0")
    );
}

/// `datadir = "disk"` puts the datadir on a disk and says so (the server
/// gets the disk's flush method, the record and the report say disk), and
/// `fresh_server` gives each workload a server of its own, loaded for it.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_disk_datadir_is_on_disk_and_each_workload_gets_a_fresh_server() {
    let _guard = serialized();
    let ranges = Workload {
        range_size: 10,
        ..Workload {
            name: "range-covered-pk".into(),
            ..small_workload()
        }
    };
    let mut m = one_repetition("e2e-disk-fresh", &["base"], small_workload());
    m.workloads.push(ranges);
    m.datadir = xtask::dims::Datadir::Disk;
    m.fresh_server = true;
    let (out, results) = run_all_successful(&m);
    assert_eq!(results.len(), 2);
    for r in &results {
        let cnf = r.my_cnf.as_ref().expect("a run records its my.cnf");
        assert_eq!(cnf.datadir_on_tmpfs, Some(false), "{}", r.key);
        assert_eq!(
            cnf.get("innodb_flush_method"),
            Some("O_DIRECT_NO_FSYNC"),
            "{}",
            r.key
        );
        assert!(!r.data_phases.is_empty(), "{}: no data loaded", r.key);
    }
    // one server per workload: each has its own logs, named for it
    let mut servers: Vec<String> = std::fs::read_dir(out.path().join("logs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    servers.sort();
    assert_eq!(
        servers,
        [
            "10.11.18-base-rep1-points-covered-pk",
            "10.11.18-base-rep1-range-covered-pk"
        ]
    );
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains("; datadir on disk"), "{md}");
    // the servers' run directories are gone from the disk root
    let root = xtask::server::RunRoot::of(xtask::dims::Datadir::Disk).path;
    let left: Vec<_> = std::fs::read_dir(&root)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "left in {}: {left:?}", root.display());
}

/// Ctrl-C in the middle of a run leaves no mariadbd and no datadir behind.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn interrupt_stops_the_server_and_removes_its_datadir() {
    let _guard = serialized();
    use std::io::{BufRead, BufReader};
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // run as root, the tool starts the server as innodb-lab, which must pass through
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
    let matrix_file = dir.path().join("m.toml");
    std::fs::write(
        &matrix_file,
        format!(
            "name = \"e2e-interrupt\"\nrepetitions = 1\n[[tree]]\nspec = \"{TREE}\"\nname = \"10.11.18\"\n\
             variants = [\"base\"]\n[[workload]]\nname = \"points-covered-pk\"\ntables = 2\ntable_size = 20000\n\
             arm_seconds = 0\nwarmup_seconds = 1\nmeasure_seconds = 60\ndiagnostic_seconds = 0\n"
        ),
    )
    .unwrap();
    let shm = dir.path().join("shm");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args([
            "matrix",
            matrix_file.to_str().unwrap(),
            "--out",
            dir.path().join("out").to_str().unwrap(),
        ])
        .env("INNODB_LAB_SHM", &shm)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // keep draining the tool's stderr, so that it never writes into a closed pipe
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = String::new();
    // a cold machine builds base first
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3600);
    while let Ok(line) =
        rx.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now()))
    {
        seen.push_str(&line);
        seen.push('\n');
        if line.contains("measured ...") {
            break;
        }
    }
    assert!(
        seen.contains("measured ..."),
        "the run never reached its measured phase:\n{seen}"
    );
    let pid_file = std::fs::read_dir(&shm)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("mariadbd.pid");
    let server_pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(130),
        "the tool exits with 130 after Ctrl-C"
    );
    assert!(
        !common::alive_pid(server_pid),
        "mariadbd {server_pid} outlived the tool"
    );
    let left: Vec<_> = std::fs::read_dir(&shm).unwrap().collect();
    assert!(left.is_empty(), "run files left on shm: {left:?}");
}

/// scan-loop on real servers: residency sampled while the scans run, the
/// hot and scan rates read from the script's own lines, the model's policy
/// recorded per variant, and the report's scan-resistance section with the
/// model beside the measurement. Small tables: a 32 MiB pool, a hot table
/// of about 590 pages, a scanned one of about 4,400.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn scan_loop_samples_residency_and_reports_it_beside_the_model() {
    let _guard = serialized();
    let mut m = one_repetition(
        "e2e-scan",
        &["base", "fixed"],
        Workload {
            threads: 1.into(),
            scan_threads: 1,
            hot_rows: 40_000,
            scan_rows: 300_000,
            rate: 3000,
            warmup_seconds: 5,
            residency_seconds: 10,
            sample_seconds: 2,
            measure_seconds: 5,
            diagnostic_seconds: 0,
            ..Workload::new("scan-loop")
        },
    );
    for v in ["base", "fixed"] {
        m.variants.insert(
            v.into(),
            // Mark's lru_scan_depth (5000) would keep this pool empty
            toml::from_str(
                "settings = { innodb_buffer_pool_size = \"32M\", innodb_lru_scan_depth = 256 }",
            )
            .unwrap(),
        );
    }
    let (out, results) = run_all_successful(&m);
    assert_eq!(results.len(), 2);
    for r in &results {
        let o = r.outcome.as_ref().unwrap();
        let sl = o.scan_loop.as_ref().expect("a scan-loop outcome");
        eprintln!(
            "{}: hot {} pages ({:?} leaf), scan {} leaf pages, kept {:?}, scan young {:?}",
            r.key,
            sl.hot_pages,
            sl.hot_leaf_pages,
            sl.scan_pages,
            sl.hot_kept(),
            sl.scan_young_avg()
        );
        // the pool as the server reports it, and the settings it ran with
        assert!(sl.settings.pool_pages > 1500 && sl.settings.pool_pages < 2100);
        assert_eq!(sl.settings.old_blocks_time_ms, 1000);
        // the warm-up brought the whole hot table in, and it fits the pool
        let leaf = sl.hot_leaf_pages.expect("read from innodb_index_stats");
        assert!(sl.hot_pages >= leaf && leaf > 400, "{sl:?}");
        assert!(sl.scan_pages > 2 * sl.settings.pool_pages, "{sl:?}");
        // the scans started at t=0, samples every 2 s up to the end of the pass
        let t: Vec<f64> = sl.samples.iter().map(|s| s.t_s).collect();
        assert!(t.len() >= 5 && t[0] == 0.0, "{t:?}");
        assert!(
            t.windows(2).all(|w| w[1] > w[0]) && *t.last().unwrap() <= 10.0,
            "{t:?}"
        );
        assert_eq!(sl.samples[0].hot_resident, sl.hot_pages);
        // the scan displaced part of the pool: its pages hold more than a
        // tenth of it in every sample while it runs, and on base (no lazy
        // promotion) hot pages were pushed out
        let tenth = sl.settings.pool_pages / 10;
        assert!(
            sl.samples[1..].iter().all(|s| s.scan_resident > tenth),
            "{sl:?}"
        );
        if r.key.variant == "base" {
            let least = sl.samples[1..].iter().map(|s| s.hot_resident).min();
            assert!(least < Some(sl.hot_pages), "{sl:?}");
        }
        assert!(sl.samples.iter().all(|s| s.sample_ms > 0.0));
        assert!(
            sl.residency_scans_per_s > 0.0 && sl.scans_per_s > 0.0,
            "{sl:?}"
        );
        assert!(sl.hot_lookups_per_s > 100.0, "{sl:?}");
        let policy = if r.key.variant == "base" {
            ModelPolicy::Eager
        } else {
            ModelPolicy::LazyPort
        };
        assert_eq!(sl.model_policy, Some(policy));
    }
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        md.contains("## Scan resistance: measured and modelled"),
        "{md}"
    );
    for v in ["base", "fixed"] {
        let row = md
            .lines()
            .find(|l| l.starts_with(&format!("| 10.11.18 | {v} | pool ")))
            .unwrap_or_else(|| panic!("no scan row for {v}:\n{md}"));
        // measured and model columns are numbers, not n/a
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        for col in [5, 6, 8, 9] {
            assert!(cells[col].parse::<f64>().is_ok(), "column {col} of {row}");
        }
    }
    assert!(out.path().join("scan-hot-kept.svg").exists());
}
