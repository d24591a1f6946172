//! A matrix split into two shards on Buildbot, for real: Buildbot 4.3.0
//! and its worker from PyPI in a virtual environment under the tool's
//! cache, a master and two workers on this host (loopback only), our
//! fragment (contrib/buildbot/innodb_lab.py) in the master's config. The
//! coordinator builder is forced over the REST API; it triggers one shard
//! per worker (both on this host, so the host lock runs them one after the
//! other), merges their results and takes its result from `validate`.
//! Master and workers are stopped on every exit path (Drop).

// This test drives the built tool (or a script) from outside, as a shell
// would, so it uses std, not the tool's runner (which would install the
// tool's own signal handling into the test harness).
#![allow(clippy::disallowed_methods)]

use serde_json::Value;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const BUILDBOT: &str = "4.3.0";
const TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

fn run(program: &Path, args: &[&str], dir: Option<&Path>) {
    let mut cmd = Command::new(program);
    cmd.args(args);
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {args:?}: {}\n{}\n{}",
        program.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The virtual environment with Buildbot, installed once per cache.
fn venv() -> PathBuf {
    let dir = xtask::util::cache_root().join("buildbot");
    let venv = dir.join(format!("venv-{BUILDBOT}"));
    if !venv.join("bin/buildbot").exists() {
        std::fs::create_dir_all(&dir).unwrap();
        run(
            Path::new("python3"),
            &["-m", "venv", venv.to_str().unwrap()],
            None,
        );
        let start = Instant::now();
        run(
            &venv.join("bin/pip"),
            &[
                "install",
                "--quiet",
                &format!("buildbot=={BUILDBOT}"),
                &format!("buildbot-worker=={BUILDBOT}"),
                &format!("buildbot-www=={BUILDBOT}"),
            ],
            None,
        );
        eprintln!("installed Buildbot {BUILDBOT} in {:?}", start.elapsed());
    }
    venv
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running master and its workers; stopped when dropped.
struct Buildbot {
    venv: PathBuf,
    master: PathBuf,
    workers: Vec<PathBuf>,
    www: u16,
}

impl Drop for Buildbot {
    fn drop(&mut self) {
        let stop = |program: &str, dir: &Path| {
            let _ = Command::new(self.venv.join("bin").join(program))
                .arg("stop")
                .arg(dir)
                .output();
            // whatever did not stop: its pid file names it
            if let Ok(pid) = std::fs::read_to_string(dir.join("twistd.pid")) {
                if let Ok(pid) = pid.trim().parse::<i32>() {
                    // SAFETY: a process this test started
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
            }
        };
        for w in &self.workers {
            stop("buildbot-worker", w);
        }
        stop("buildbot", &self.master);
    }
}

impl Buildbot {
    fn get(&self, path: &str) -> Value {
        let out = Command::new("curl")
            .args([
                "-sf",
                &format!("http://127.0.0.1:{}/api/v2/{path}", self.www),
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "GET {path}: {}", out.status);
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn post(&self, path: &str, body: &Value) -> Value {
        let out = Command::new("curl")
            .args([
                "-sf",
                "-X",
                "POST",
                "-H",
                "Content-Type: application/json",
                "-d",
                &body.to_string(),
                &format!("http://127.0.0.1:{}/api/v2/{path}", self.www),
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "POST {path}: {}", out.status);
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn wait<T>(&self, what: &str, limit: Duration, mut f: impl FnMut(&Self) -> Option<T>) -> T {
        let start = Instant::now();
        loop {
            if let Some(v) = f(self) {
                return v;
            }
            assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
            std::thread::sleep(Duration::from_secs(1));
        }
    }
}

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_two_shard_matrix_runs_on_buildbot_and_its_merged_report_holds_both() {
    // the builds first, outside Buildbot: on a cold cache they take longer
    // than the coordinator's time limit, which is meant for Buildbot's own
    // work (the workers then reuse them, as on a host that built before)
    let tree = xtask::tree::resolve(&TREE.parse().unwrap()).unwrap();
    for v in ["base", "gate"] {
        let resolved = xtask::variant::resolve(&Default::default(), &tree, v).unwrap();
        xtask::build::build(&tree, &resolved.label, &resolved.change, Default::default()).unwrap();
    }
    let venv = venv();
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    // the matrix: two comparison groups (1 and 2 threads), one per shard
    let matrix = root.join("bb.toml");
    std::fs::write(
        &matrix,
        format!(
            "name = \"buildbot-test\"\nrepetitions = 1\nbusy_cpu_bound = 1000000.0\n\
             [[tree]]\nspec = \"{TREE}\"\nname = \"10.11.18\"\nvariants = [\"base\", \"gate\"]\n\
             [[workload]]\nname = \"points-covered-pk\"\ntables = 2\ntable_size = 20000\n\
             threads = [1, 2]\narm_seconds = 3\nwarmup_seconds = 1\nmeasure_seconds = 3\n\
             diagnostic_seconds = 0\nidle_limit_seconds = 10\n"
        ),
    )
    .unwrap();
    let (pb, www) = (free_port(), free_port());
    let master = root.join("master");
    let results = root.join("results");
    let scratch = root.join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    run(
        &venv.join("bin/buildbot"),
        &["create-master", master.to_str().unwrap()],
        None,
    );
    std::fs::write(
        master.join("master.cfg"),
        format!(
            r#"import sys
sys.path.insert(0, "{repo}/contrib/buildbot")
from buildbot.plugins import worker
from innodb_lab import add_innodb_lab

c = BuildmasterConfig = {{}}
c["workers"] = [worker.Worker("w1", "pw1"), worker.Worker("w2", "pw2")]
c["protocols"] = {{"pb": {{"port": "tcp:{pb}:interface=127.0.0.1"}}}}
c["builders"] = []
c["schedulers"] = []
c["www"] = dict(port="tcp:{www}:interface=127.0.0.1", plugins={{}})
c["db"] = {{"db_url": "sqlite:///state.sqlite"}}
c["buildbotNetUsageData"] = None
c["title"] = "innodb-lab shards"
c["buildbotURL"] = "http://127.0.0.1:{www}/"
add_innodb_lab(
    c,
    matrix="{matrix}",
    shards=2,
    workers={{"w1": "this-host", "w2": "this-host"}},
    checkout="{repo}",
    results="{results}",
    validate=("base", "gate"),
    tool=["{tool}"],
    scratch="{scratch}",
)
"#,
            repo = repo().display(),
            matrix = matrix.display(),
            results = results.display(),
            tool = env!("CARGO_BIN_EXE_xtask"),
            scratch = scratch.display(),
        ),
    )
    .unwrap();
    let mut bb = Buildbot {
        venv: venv.clone(),
        master: master.clone(),
        workers: Vec::new(),
        www,
    };
    let started = Command::new(venv.join("bin/buildbot"))
        .args(["start", master.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        started.status.success(),
        "the master did not start; twistd.log:\n{}",
        xtask::util::tail_lines(&master.join("twistd.log"), 30)
    );
    for (name, pw) in [("w1", "pw1"), ("w2", "pw2")] {
        let dir = root.join(name);
        run(
            &venv.join("bin/buildbot-worker"),
            &[
                "create-worker",
                dir.to_str().unwrap(),
                &format!("127.0.0.1:{pb}"),
                name,
                pw,
            ],
            None,
        );
        run(
            &venv.join("bin/buildbot-worker"),
            &["start", dir.to_str().unwrap()],
            None,
        );
        bb.workers.push(dir);
    }
    bb.wait("both workers connected", Duration::from_secs(60), |bb| {
        let w = bb.get("workers");
        let connected = w["workers"]
            .as_array()?
            .iter()
            .filter(|w| w["connected_to"].as_array().is_some_and(|c| !c.is_empty()))
            .count();
        (connected == 2).then_some(())
    });
    let builders = bb.get("builders");
    let id = builders["builders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "innodb-lab")
        .expect("the coordinator builder")["builderid"]
        .as_i64()
        .unwrap();
    let forced = bb.post(
        "forceschedulers/innodb-lab-force",
        &serde_json::json!({"jsonrpc": "2.0", "method": "force", "id": 1,
                            "params": {"builderid": id.to_string()}}),
    );
    assert!(forced.get("error").is_none(), "{forced}");
    let build = bb.wait("the coordinator's build", Duration::from_secs(1200), |bb| {
        let b = bb.get(&format!("builders/{id}/builds"));
        let b = b["builds"].as_array()?.first()?.clone();
        (b["complete"] == true).then_some(b)
    });
    eprintln!("coordinator build: {build}");
    let number = build["number"].as_i64().unwrap();
    let merged = results.join(number.to_string()).join("merged");
    let runs = xtask::results::read_results(&merged)
        .unwrap_or_else(|e| panic!("{}: {e:#} (build {build})", merged.display()));
    // both shards' cells: every variant at 1 and 2 threads
    let mut cells: Vec<String> = runs
        .iter()
        .map(|r| format!("{} {}", r.key.variant, r.key.threads))
        .collect();
    cells.sort();
    assert_eq!(cells, ["base 1", "base 2", "gate 1", "gate 2"], "{build}");
    assert!(runs.iter().all(|r| r.ok()), "every run succeeded");
    let md = std::fs::read_to_string(merged.join("report.md")).unwrap();
    assert!(
        md.contains("| 10.11.18 | points-covered-pk | 1 | gate |"),
        "{md}"
    );
    assert!(
        md.contains("| 10.11.18 | points-covered-pk | 2 | gate |"),
        "{md}"
    );
    // the build's result is validate's verdict on the merged results:
    // 0 -> success (0), 1 -> failure (2), 2 -> warnings (1)
    let code = xtask::validate::run(
        &format!("{}:base", merged.display()),
        &format!("{}:gate", merged.display()),
        None,
        xtask::dims::Metric::Qps,
    )
    .unwrap();
    let expected = match code {
        0 => 0,
        1 => 2,
        _ => 1,
    };
    assert_eq!(
        build["results"].as_i64(),
        Some(expected),
        "validate exit {code}: {build}"
    );
    drop(bb);

    // the same matrix unsharded: the merged report has the same cells,
    // row for row (tree, workload, threads, variant, runs), apart from the
    // measured values and the hosts
    let unsharded = root.join("unsharded");
    let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args([
            "matrix",
            matrix.to_str().unwrap(),
            "--out",
            unsharded.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cells = |md: &str| -> Vec<String> {
        md.lines()
            .skip_while(|l| !l.starts_with("## Results"))
            .skip(1)
            .take_while(|l| !l.starts_with("## "))
            .filter(|l| l.starts_with("| 10.11.18 |"))
            .map(|l| l.split('|').take(6).collect::<Vec<_>>().join("|"))
            .collect()
    };
    let whole = std::fs::read_to_string(unsharded.join("report.md")).unwrap();
    assert_eq!(
        cells(&md),
        cells(&whole),
        "merged:\n{md}\nunsharded:\n{whole}"
    );
    assert_eq!(cells(&md).len(), 4);
    // nothing of Buildbot is left
    for dir in [&master, &root.join("w1"), &root.join("w2")] {
        if let Ok(pid) = std::fs::read_to_string(dir.join("twistd.pid")) {
            let pid: i32 = pid.trim().parse().unwrap();
            // SAFETY: signal 0 only asks whether the process exists
            assert!(
                unsafe { libc::kill(pid, 0) } != 0,
                "{} still runs",
                dir.display()
            );
        }
    }
}
