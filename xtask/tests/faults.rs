//! Faults, on real parts where the fault is about a server: Debian's
//! MariaDB 10.11.18 (base, built once in the tool's cache and reused),
//! real servers on a run directory base of the test's own, real sysbench.
//! Each test asserts the outcome: what was recorded, the exit status, and
//! that no mariadbd, sysbench, compiler or run directory is left. Signals
//! are sent after a line the tool prints when it has reached the point
//! the fault is about, never after a sleep.

// This test drives the built tool (or a script) from outside, as a shell
// would, so it uses std, not the tool's runner (which would install the
// tool's own signal handling into the test harness).
#![allow(clippy::disallowed_methods)]

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};
use xtask::results;

const TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

/// One at a time: the machine has two cores and the tests share builds.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serialized() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// A matrix file with tiny tables and short phases; `extra` adds lines
/// (variant definitions).
fn matrix_file(dir: &Path, name: &str, variants: &str, measure: u64, extra: &str) -> PathBuf {
    let p = dir.join(format!("{name}.toml"));
    std::fs::write(
        &p,
        format!(
            "name = \"{name}\"\nrepetitions = 1\n[[tree]]\nspec = \"{TREE}\"\nname = \"10.11.18\"\n\
             variants = [{variants}]\n[[workload]]\nname = \"points-covered-pk\"\ntables = 2\n\
             table_size = 10000\nthreads = [1, 2]\narm_seconds = 0\nwarmup_seconds = 0\n\
             measure_seconds = {measure}\ndiagnostic_seconds = 0\nidle_limit_seconds = 0\n{extra}"
        ),
    )
    .unwrap();
    p
}

/// The tool, started with its run directories under `shm` and stderr
/// read line by line on a thread (so it never writes into a full pipe).
struct Tool {
    child: Child,
    lines: Receiver<String>,
    seen: String,
}

impl Tool {
    fn start(args: &[&str], shm: &Path, env: &[(&str, &str)]) -> Tool {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
        cmd.args(args)
            .env("INNODB_LAB_SHM", shm)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("    | {line}");
                let _ = tx.send(line);
            }
        });
        Tool {
            child,
            lines: rx,
            seen: String::new(),
        }
    }

    /// Waits for a line containing `marker` (a cold cache builds first).
    fn wait_for(&mut self, marker: &str) {
        let deadline = Instant::now() + Duration::from_secs(3600);
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            self.seen.push_str(&line);
            self.seen.push('\n');
            if line.contains(marker) {
                return;
            }
        }
        panic!("the tool never printed `{marker}`:\n{}", self.seen);
    }

    fn signal(&self, sig: i32) {
        // SAFETY: a signal to our own child
        unsafe { libc::kill(self.child.id() as i32, sig) };
    }

    /// Waits for the exit; returns the exit code and everything printed.
    fn finish(mut self) -> (Option<i32>, String) {
        let status = self.child.wait().unwrap();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push_str(&line);
            self.seen.push('\n');
        }
        (status.code(), self.seen)
    }
}

/// A temporary directory the server can pass through: run as root, the
/// tool starts servers as the system user innodb-lab, and the run
/// directories of these tests live below this one.
fn scratch_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
    dir
}

/// The server runs as the tool's own user, and never as root: a tool run
/// as root starts it as the system user innodb-lab.
fn assert_server_is_not_root(pid: i32) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let uids: Vec<u32> = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .unwrap()
        .split_whitespace()
        .map(|u| u.parse().unwrap())
        .collect();
    // SAFETY: geteuid has no preconditions
    let me = unsafe { libc::geteuid() };
    let expected = if me == 0 {
        let user = xtask::server::user::lookup(xtask::server::user::SERVER_USER)
            .unwrap()
            .expect("the system user exists (tools/install-deps.sh)");
        assert_ne!(user.uid, 0);
        user.uid
    } else {
        me
    };
    // real, effective, saved and filesystem uid
    assert_eq!(uids, vec![expected; 4], "mariadbd {pid}: {status}");
}

/// Every live process whose command line names `needle`.
fn processes_naming(needle: &str) -> Vec<(i32, String)> {
    let me = std::process::id() as i32;
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let pid: i32 = e.file_name().to_str()?.parse().ok()?;
            let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let zombie = stat.rsplit(')').next()?.trim_start().starts_with('Z');
            (pid != me && !zombie && cmd.contains(needle)).then_some((pid, cmd))
        })
        .collect()
}

/// No run directory and no process of this test's runs is left.
fn assert_nothing_left(shm: &Path) {
    let left: Vec<_> = std::fs::read_dir(shm)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "run directories left: {left:?}");
    let procs = processes_naming(&shm.display().to_string());
    assert!(procs.is_empty(), "processes left: {procs:?}");
}

/// The server pid of the one run directory under `shm`.
fn server_pid(shm: &Path) -> i32 {
    let dirs: Vec<PathBuf> = std::fs::read_dir(shm)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(dirs.len(), 1, "one server at a time: {dirs:?}");
    std::fs::read_to_string(dirs[0].join("mariadbd.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

fn out_results(out: &Path) -> Vec<xtask::record::RunResult> {
    results::read_results(out).unwrap()
}

/// SIGTERM during the measured run: exit 143, the cell recorded as
/// interrupted, no mariadbd, no sysbench, no run directory.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn sigterm_mid_run_stops_everything_and_records_the_cell() {
    let _guard = serialized();
    let dir = scratch_dir();
    let shm = dir.path().join("shm");
    let out = dir.path().join("out");
    // 600 s: the signal certainly lands inside the measured run
    let m = matrix_file(dir.path(), "fault-term", "\"base\"", 600, "");
    let mut tool = Tool::start(
        &[
            "matrix",
            m.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &shm,
        &[],
    );
    tool.wait_for("measured ...");
    tool.signal(libc::SIGTERM);
    let (code, seen) = tool.finish();
    assert_eq!(code, Some(143), "{seen}");
    let r = out_results(&out);
    assert_eq!(r.len(), 1, "only the interrupted cell is recorded");
    let f = r[0].failure.as_ref().expect("the cell failed");
    assert!(f.message.contains("interrupted by SIGTERM"), "{f}");
    assert_nothing_left(&shm);
}

/// The processes below `root` (children, grandchildren ...).
fn descendants(root: i32) -> Vec<(i32, u64)> {
    let mut all: Vec<(i32, i32, u64)> = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let Some(rest) = stat.rfind(')').map(|i| stat[i + 1..].to_string()) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        let ppid: i32 = f[1].parse().unwrap_or(0);
        let start: u64 = f[19].parse().unwrap_or(0);
        all.push((pid, ppid, start));
    }
    let mut found: Vec<(i32, u64)> = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for &(pid, ppid, start) in &all {
            if ppid == p {
                found.push((pid, start));
                frontier.push(pid);
            }
        }
    }
    found
}

fn alive(pid: i32, start: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            let rest = s[s.rfind(')')? + 1..].to_string();
            let f: Vec<&str> = rest.split_whitespace().collect();
            Some(f[0] != "Z" && f[19].parse::<u64>().ok()? == start)
        })
        .unwrap_or(false)
}

/// SIGTERM while make runs: exit 143, make and every compiler stopped,
/// the build not marked complete. A cache of its own: the build is cold
/// and the real cache is left alone.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn sigterm_mid_build_stops_make_and_its_compilers() {
    let _guard = serialized();
    let dir = scratch_dir();
    let cache = dir.path().join("cache");
    let mut tool = Tool::start(
        &["build", "--tree", TREE, "--variant", "base"],
        &dir.path().join("shm"),
        &[("INNODB_LAB_CACHE", cache.to_str().unwrap())],
    );
    tool.wait_for("==> make");
    // compilers appear once make has read its makefiles
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut below = descendants(tool.child.id() as i32);
    while below.len() < 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        below = descendants(tool.child.id() as i32);
    }
    assert!(below.len() >= 3, "make started its compilers: {below:?}");
    tool.signal(libc::SIGTERM);
    let (code, seen) = tool.finish();
    assert_eq!(code, Some(143), "{seen}");
    let left: Vec<_> = below.iter().filter(|(p, s)| alive(*p, *s)).collect();
    assert!(left.is_empty(), "left running after the tool: {left:?}");
    let complete = std::fs::read_dir(cache.join("builds"))
        .unwrap()
        .flatten()
        .any(|e| e.path().join("build.json").exists());
    assert!(!complete, "an interrupted build is not marked complete");
}

/// The tool killed with SIGKILL mid-run: the next run finds the run
/// directory of the dead tool, stops what is left of it, removes it, says
/// so in one line, and runs.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn sigkill_of_the_tool_then_the_next_run_cleans_up() {
    let _guard = serialized();
    let dir = scratch_dir();
    let shm = dir.path().join("shm");
    let m = matrix_file(dir.path(), "fault-kill", "\"base\"", 600, "");
    let out1 = dir.path().join("out1");
    let mut tool = Tool::start(
        &[
            "matrix",
            m.to_str().unwrap(),
            "--out",
            out1.to_str().unwrap(),
        ],
        &shm,
        &[],
    );
    tool.wait_for("measured ...");
    let dead_dir: PathBuf = std::fs::read_dir(&shm)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    tool.signal(libc::SIGKILL);
    let (code, _) = tool.finish();
    assert_eq!(code, None, "killed by a signal");
    assert!(dead_dir.exists(), "SIGKILL leaves the run directory");

    let m2 = matrix_file(dir.path(), "fault-kill-next", "\"base\"", 2, "");
    let out2 = dir.path().join("out2");
    let tool = Tool::start(
        &[
            "matrix",
            m2.to_str().unwrap(),
            "--out",
            out2.to_str().unwrap(),
        ],
        &shm,
        &[],
    );
    let (code, seen) = tool.finish();
    assert_eq!(code, Some(0), "{seen}");
    let line = seen
        .lines()
        .find(|l| l.contains("left by a tool that is gone"))
        .unwrap_or_else(|| panic!("no clean-up line:\n{seen}"));
    assert!(line.contains(&dead_dir.display().to_string()), "{line}");
    assert!(out_results(&out2).iter().all(|r| r.ok()));
    assert_nothing_left(&shm);
}

/// `matrix m --out out` on `cache` while this test holds a lock, to the
/// end (it is refused before anything runs).
fn matrix_beside_a_holder(dir: &Path, m: &Path, out: &Path, cache: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args([
            "matrix",
            m.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .env("INNODB_LAB_CACHE", cache)
        .env("INNODB_LAB_SHM", dir.join("shm"))
        .env_remove(xtask::environment::LOCK_PARENT)
        .output()
        .unwrap()
}

/// A second matrix while another command holds the cache: refused with the
/// holder's pid, nothing written.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_second_matrix_on_the_same_host_is_refused() {
    let dir = scratch_dir();
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let _held = xtask::lock::acquire(&cache.join("lock"), "the test").unwrap();
    let m = matrix_file(dir.path(), "fault-second", "\"base\"", 2, "");
    let out = dir.path().join("out");
    let o = matrix_beside_a_holder(dir.path(), &m, &out, &cache);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("pid {}", std::process::id())) && err.contains("refused"),
        "{err}"
    );
    assert!(!out.exists(), "nothing was written");
    assert!(!dir.path().join("shm").exists(), "no server was started");
}

/// A second matrix into a results directory another matrix writes, from
/// another cache (so the cache lock does not stop it): refused by the
/// results directory's lock, with the holder's pid, before any server.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_second_matrix_into_the_same_results_directory_is_refused() {
    let dir = scratch_dir();
    let cache = dir.path().join("cache-of-its-own");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let _held = xtask::lock::results(&out).unwrap();
    let m = matrix_file(dir.path(), "fault-second-out", "\"base\"", 2, "");
    let o = matrix_beside_a_holder(dir.path(), &m, &out, &cache);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("this results directory")
            && err.contains(&format!("pid {}", std::process::id()))
            && err.contains("refused"),
        "{err}"
    );
    let written: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n != ".lock")
        .collect();
    assert!(
        written.is_empty(),
        "written into the held directory: {written:?}"
    );
    assert!(!dir.path().join("shm").exists(), "no server was started");
}

/// A server stopped with SIGSTOP (hung): its cell fails with the step and
/// the error-log tail, the server is killed, the next server runs. The
/// next server runs with performance_schema off: its mutex figures are
/// absent with the reason, and the report says "not measured".
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_hung_server_fails_its_cell_and_the_matrix_goes_on() {
    // not serialized: most of this test is the tool's wait for a stopped
    // server to answer (server::SQL_TIMEOUT), which takes no CPU, so
    // another test of this suite runs beside it; its run directories,
    // results and processes are under its own scratch directory
    let dir = scratch_dir();
    let shm = dir.path().join("shm");
    let out = dir.path().join("out");
    let m = matrix_file(
        dir.path(),
        "fault-hung",
        "\"base\", \"nops\"",
        3,
        "[variant.nops]\nsettings = { performance_schema = 0 }\n",
    );
    // the diagnostic pass is where the instrument is read
    let text = std::fs::read_to_string(&m)
        .unwrap()
        .replace("diagnostic_seconds = 0", "diagnostic_seconds = 2");
    std::fs::write(&m, text).unwrap();
    let (pid, code, seen) = signal_the_server_mid_run(&m, &out, &shm, libc::SIGSTOP);
    assert_eq!(code, Some(1), "failed cells make exit status 1:\n{seen}");
    let r = out_results(&out);
    let base: Vec<_> = r.iter().filter(|r| r.key.variant == "base").collect();
    let hung = base
        .iter()
        .filter_map(|r| r.failure.as_ref())
        .find(|f| f.message.contains("hung"))
        .unwrap_or_else(|| panic!("no cell of base failed as hung: {base:#?}"));
    assert!(hung.error_log_tail.is_some(), "{hung}");
    let nops: Vec<_> = r.iter().filter(|r| r.key.variant == "nops").collect();
    assert_eq!(nops.len(), 2);
    for r in &nops {
        assert!(r.ok(), "the next server ran: {:?}", r.failure);
        let o = r.outcome.as_ref().unwrap();
        let d = o.diagnostic.as_ref().unwrap();
        assert_eq!(d.buf_pool_mutex_acquisitions, None);
        assert_eq!(d.measured.buf_pool_mutex_per_query, None);
        assert!(
            o.not_measured
                .iter()
                .any(|n| n.metric == "buf_pool_mutex" && n.reason.contains("performance_schema")),
            "{:?}",
            o.not_measured
        );
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("## Not measured"), "{md}");
    // SIGKILL reached the stopped server
    assert!(!common::alive_pid(pid), "the hung server {pid} was killed");
    assert_nothing_left(&shm);
}

/// The server killed with SIGKILL mid-run: its cell fails with the error
/// log's tail, the next server runs.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_server_killed_mid_run_fails_its_cell_and_the_matrix_goes_on() {
    let _guard = serialized();
    let dir = scratch_dir();
    let shm = dir.path().join("shm");
    let out = dir.path().join("out");
    let m = matrix_file(
        dir.path(),
        "fault-server-kill",
        "\"base\", \"young\"",
        3,
        "[variant.young]\nsettings = { innodb_old_blocks_time = 0 }\n",
    );
    let (_, code, seen) = signal_the_server_mid_run(&m, &out, &shm, libc::SIGKILL);
    assert_eq!(code, Some(1), "{seen}");
    let r = out_results(&out);
    let died = r
        .iter()
        .filter(|r| r.key.variant == "base")
        .filter_map(|r| r.failure.as_ref())
        .find(|f| f.message.contains("mariadbd died"))
        .unwrap_or_else(|| panic!("no base cell failed as died: {r:#?}"));
    assert!(died.error_log_tail.is_some(), "{died}");
    let young: Vec<_> = r.iter().filter(|r| r.key.variant == "young").collect();
    assert_eq!(young.len(), 2);
    assert!(young.iter().all(|r| r.ok()), "{young:#?}");
    assert_nothing_left(&shm);
}

/// A /dev/shm too small for the matrix: refused by the preflight before
/// any tree is fetched or built.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn too_little_shm_is_refused_before_any_build() {
    let dir = scratch_dir();
    let shm = dir.path().join("shm");
    // 64 tables of 10^9 rows (the most a table may have): far more than
    // any host's free space
    let m = matrix_file(dir.path(), "fault-shm", "\"base\"", 2, "")
        .to_str()
        .unwrap()
        .to_string();
    let text = std::fs::read_to_string(&m)
        .unwrap()
        .replace("tables = 2", "tables = 64")
        .replace("table_size = 10000", "table_size = 1000000000");
    std::fs::write(&m, text).unwrap();
    let out = dir.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["matrix", &m, "--out", out.to_str().unwrap()])
        .env("INNODB_LAB_CACHE", dir.path().join("cache"))
        .env("INNODB_LAB_SHM", &shm)
        .env_remove(xtask::environment::LOCK_PARENT)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("preflight") && err.contains(&shm.display().to_string()),
        "{err}"
    );
    assert!(
        !err.contains("==> tree") && !err.contains("==> build"),
        "{err}"
    );
    assert!(
        !dir.path().join("cache/trees").exists(),
        "nothing was fetched"
    );
}

/// A variant that sets the socket: refused with the file and line before
/// anything runs.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_setting_that_overrides_the_socket_is_refused_with_file_and_line() {
    let dir = scratch_dir();
    let m = matrix_file(
        dir.path(),
        "fault-socket",
        "\"open\"",
        2,
        "[variant.open]\nsettings = { socket = \"/tmp/everyone.sock\" }\n",
    );
    let out = dir.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args([
            "matrix",
            m.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .env("INNODB_LAB_CACHE", dir.path().join("cache"))
        .env("INNODB_LAB_SHM", dir.path().join("shm"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    // the [variant.open] settings line is the file's 18th
    assert!(
        err.contains(&format!("{}:18:", m.display())) && err.contains("`socket`"),
        "{err}"
    );
    assert!(!out.exists() && !dir.path().join("shm").exists());
}

/// Runs matrix `m` into `out`, sends `signal` to its server once the
/// measured phase has started, and returns the server's pid and the tool's
/// exit code and output.
fn signal_the_server_mid_run(
    m: &Path,
    out: &Path,
    shm: &Path,
    signal: libc::c_int,
) -> (i32, Option<i32>, String) {
    let mut tool = Tool::start(
        &[
            "matrix",
            m.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        shm,
        &[],
    );
    tool.wait_for("measured ...");
    let pid = server_pid(shm);
    assert_server_is_not_root(pid);
    // SAFETY: a signal to the test's own server
    unsafe { libc::kill(pid, signal) };
    let (code, seen) = tool.finish();
    (pid, code, seen)
}
