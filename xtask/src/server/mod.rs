//! Servers: a my.cnf from Mark Callaghan's settings scaled to this host, a
//! datadir on /dev/shm bootstrapped by the tree's own install script (or
//! by `mysqld --initialize-insecure`), the server in its own process group
//! listening on a unix socket only, and a clean shutdown (or SIGKILL) on
//! every exit path.

mod binaries;
mod my_cnf;
mod run_dir;
mod run_root;
mod staged;
mod under_callgrind;
pub mod user;

use crate::children;
use crate::dims::{AtStep, Engine, ErrorLogTail, Step};
use crate::record::MyCnf;
use crate::util::space::LowWater;
use crate::util::{tail_lines, Child, Command};
use anyhow::{Context, Result};
pub use binaries::{Bootstrap, ServerBinaries};
pub use run_dir::{RunDir, PAGE_TRACE_ENV, SOCKET_PATH_MAX};
pub use run_root::{is_tmpfs, shm_root, trusted_shm_root, RunRoot};
use std::fs;
use std::time::{Duration, Instant};
pub use under_callgrind::Callgrind;

/// How a server was lost during a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lost {
    Died(std::process::ExitStatus),
    /// did not answer and did not exit: killed
    Hung,
}

/// A running server. Dropping it stops the server (SIGTERM, then SIGKILL)
/// and removes its files unless they are kept.
pub struct Server {
    pub pid: u32,
    /// whose server runs: its name in messages
    pub engine: Engine,
    child: Child,
    pub dir: RunDir,
    keep: bool,
    stopped: bool,
    /// the switch of a server started under callgrind
    pub callgrind: Option<Callgrind>,
    /// how the server was started and how long it may take, to start it
    /// again on the same files (`restart`); None under Valgrind
    relaunch: Option<(Command, Duration)>,
}

/// How the server process starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launch {
    /// the server itself, as root when the tool is root (it drops to its
    /// user after reading its files)
    Native,
    /// under Valgrind's callgrind, instrumentation off, as the server's
    /// user from the start (`profile::callgrind` says why), from a copy of
    /// the binary in the run directory
    Callgrind,
}

/// The pool's dump in the datadir (`innodb_buffer_pool_filename`'s
/// default in both engines), loaded back at start-up when present.
const POOL_DUMP: &str = "ib_buffer_pool";

/// How long a server may take to be bootstrapped, to start, to shut down
/// cleanly.
const BOOTSTRAP_TIMEOUT: Duration = Duration::from_secs(300);
const START_TIMEOUT: Duration = Duration::from_secs(180);
/// Under Valgrind the server starts 10 to 50 times slower (seconds with a
/// pool of a few hundred MiB here, minutes with gigabytes).
const START_UNDER_VALGRIND_TIMEOUT: Duration = Duration::from_secs(900);
const STOP_TIMEOUT: Duration = Duration::from_secs(120);
/// Read and write timeout of every SQL connection: no statement the tool
/// sends takes this long on a server that works (the long waits, idle and
/// flush, poll with short statements), so a stopped or deadlocked server
/// fails the statement instead of blocking the tool forever.
pub const SQL_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a server gets to answer `SELECT 1` when the tool asks whether
/// it still works.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

impl Server {
    /// Writes the my.cnf, bootstraps the datadir (in a run directory under
    /// `runs`) with the tree's own install script and starts the server,
    /// waiting until it accepts connections.
    pub fn start(
        binaries: &ServerBinaries,
        cnf: &MyCnf,
        runs: &RunRoot,
        name: &str,
        keep: bool,
    ) -> Result<Server> {
        Self::start_as(binaries, cnf, runs, name, keep, Launch::Native)
    }

    /// `start`, with the process started as `launch` says.
    pub fn start_as(
        binaries: &ServerBinaries,
        cnf: &MyCnf,
        runs: &RunRoot,
        name: &str,
        keep: bool,
        launch: Launch,
    ) -> Result<Server> {
        let user = user::server_user()?;
        let dir = RunDir::create(runs, name, user.as_ref())?;
        if keep {
            dir.mark_kept();
        }
        // under Valgrind the server is its user from the start: no `user=`
        // line, and its files where that user can read them
        let (staged, cnf_user) = match launch {
            Launch::Native => (None, user.as_ref()),
            Launch::Callgrind => (Some(staged::stage(binaries, &dir)?), None),
        };
        let run_binaries = staged.as_ref().unwrap_or(binaries);
        fs::write(&dir.cnf, cnf.render(&dir, run_binaries, cnf_user))?;
        bootstrap(binaries, &dir, user.as_ref(), keep)?;

        let stdout = fs::File::create(
            dir.root
                .join(format!("{}.out", binaries.engine.server_binary())),
        )?;
        // the root password is set before the server accepts anyone
        // (init_file runs before the first connection is taken)
        let init = dir.write_credentials(user.as_ref())?;
        let server_args = [
            format!("--defaults-file={}", dir.cnf.display()),
            format!("--init-file={}", init.display()),
        ];
        let callgrind_dir = dir.root.join("callgrind");
        let (command, start_timeout) = match launch {
            // a traced build (patches/11.8/traced.patch) writes its page
            // trace there; any other build ignores the variable
            Launch::Native => (
                Command::new(binaries.server.display().to_string())
                    .args(server_args)
                    .env(PAGE_TRACE_ENV, dir.page_trace().display().to_string()),
                START_TIMEOUT,
            ),
            Launch::Callgrind => {
                fs::create_dir_all(&callgrind_dir)?;
                user::hand_over(&callgrind_dir, user.as_ref())?;
                let mut c = Command::new("valgrind")
                    .args(Callgrind::wrapper_args(&callgrind_dir))
                    .arg(run_binaries.server.display().to_string())
                    .args(server_args)
                    // Valgrind's own files go where its user may write
                    .env("HOME", dir.root.display().to_string())
                    .env("TMPDIR", dir.tmp.display().to_string());
                if let Some(u) = &user {
                    c = c.as_user(u.uid, u.gid);
                }
                (c, START_UNDER_VALGRIND_TIMEOUT)
            }
        };
        let relaunch = (launch == Launch::Native).then(|| (command.clone(), start_timeout));
        let low_water = LowWater::watch(&dir.root);
        let child = command.start(stdout.try_clone()?.into(), stdout.into())?;
        let pid = child.id();
        // Valgrind runs the server in its own process: one pid
        let callgrind = (launch == Launch::Callgrind).then(|| Callgrind {
            dir: callgrind_dir,
            pid,
            user: user.as_ref().map(|u| (u.uid, u.gid)),
        });
        if !keep {
            children::register_dir(&dir.root);
        }
        let mut server = Server {
            pid,
            engine: binaries.engine,
            child,
            dir,
            keep,
            stopped: false,
            callgrind,
            relaunch,
        };
        // a server that does not come up is stopped by its Drop
        server
            .come_up(
                AtStep::injected(Step::Start, None),
                start_timeout,
                low_water,
            )
            .context(AtStep(Step::Start))?;
        Ok(server)
    }

    /// After the server's process was started (`before`: what had to hold
    /// first): waits until it accepts connections and looks up its sockets;
    /// a failure names the run directory's filesystem when it was full
    /// meanwhile (`low_water`, watched since before the start).
    fn come_up(
        &mut self,
        before: Result<()>,
        timeout: Duration,
        low_water: LowWater,
    ) -> Result<()> {
        let started = before
            .and_then(|()| self.wait_ready(timeout))
            .and_then(|()| self.refuse_network_listeners());
        let lowest_free = low_water.lowest();
        started.map_err(|e| no_room(e, &self.dir, lowest_free))
    }

    /// Shuts the server down cleanly and starts it again on the same run
    /// directory and my.cnf, until it accepts connections: a cold pool
    /// with every table on disk. The shutdown is the slow one, so that
    /// purge is done and no page of the load is read again by it after the
    /// start; the pool is not dumped, and an earlier dump (the bootstrap's
    /// shutdown may write one) is removed, so the start loads nothing back
    /// (`innodb_buffer_pool_load_at_startup` is on by default in both
    /// engines). Its output goes on in the same file.
    pub fn restart(&mut self) -> Result<()> {
        use mysql::prelude::Queryable;
        let name = self.engine.server_binary();
        let (command, start_timeout) = self
            .relaunch
            .clone()
            .with_context(|| format!("a {name} under Valgrind is not restarted"))?;
        let mut conn = self.connect()?;
        for setting in [
            "SET GLOBAL innodb_fast_shutdown = 0",
            "SET GLOBAL innodb_buffer_pool_dump_at_shutdown = OFF",
        ] {
            conn.query_drop(setting)
                .with_context(|| format!("cannot `{setting}` before the restart"))?;
        }
        drop(conn);
        if !self.shutdown() {
            anyhow::bail!(
                "{name} did not shut down cleanly before its restart:
{}",
                self.error_log_tail()
            );
        }
        let dump = self.dir.data.join(POOL_DUMP);
        match fs::remove_file(&dump) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("cannot remove {}", dump.display()));
            }
            _ => {}
        }
        let stdout = fs::OpenOptions::new()
            .append(true)
            .open(self.dir.root.join(format!("{name}.out")))?;
        let low_water = LowWater::watch(&self.dir.root);
        self.child = command.start(stdout.try_clone()?.into(), stdout.into())?;
        self.pid = self.child.id();
        self.stopped = false;
        self.come_up(Ok(()), start_timeout, low_water)
            .with_context(|| format!("{name} did not start again after its restart"))
    }

    fn wait_ready(&mut self, timeout: Duration) -> Result<()> {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait()? {
                self.stopped = true;
                children::unregister(self.pid as i32);
                return Err(
                    anyhow::Error::new(ErrorLogTail(self.error_log_tail())).context(format!(
                        "{} exited during start-up ({status})",
                        self.engine.server_binary()
                    )),
                );
            }
            if self.dir.socket.exists() && self.connect().is_ok() {
                return Ok(());
            }
            if start.elapsed() > timeout {
                return Err(
                    anyhow::Error::new(ErrorLogTail(self.error_log_tail())).context(format!(
                        "{} did not accept connections within {} s",
                        self.engine.server_binary(),
                        timeout.as_secs()
                    )),
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// A server is reached through its unix socket only: one that listens
    /// on the network anyway (an option or plugin the tool's my.cnf did not
    /// foresee) fails its start, naming the ports, and is stopped.
    fn refuse_network_listeners(&self) -> Result<()> {
        let found = crate::procfs::net_listeners(self.pid)
            .context("cannot list the server's sockets under /proc")?;
        if !found.is_empty() {
            let ports: Vec<String> = found
                .iter()
                .map(|l| format!("{} port {}", l.table, l.port))
                .collect();
            anyhow::bail!(
                "{} listens on the network ({}) although its my.cnf says skip_networking",
                self.engine.server_binary(),
                ports.join(", ")
            );
        }
        Ok(())
    }

    pub fn connect(&self) -> Result<mysql::Conn> {
        self.connect_with(SQL_TIMEOUT)
    }

    fn connect_with(&self, timeout: Duration) -> Result<mysql::Conn> {
        let opts = mysql::OptsBuilder::new()
            .socket(Some(self.dir.socket.display().to_string()))
            .user(Some("root"))
            .pass(Some(self.dir.password()?))
            .prefer_socket(true)
            .read_timeout(Some(timeout))
            .write_timeout(Some(timeout));
        mysql::Conn::new(opts)
            .with_context(|| format!("cannot connect to {}", self.dir.socket.display()))
    }

    /// Whether the server answers `SELECT 1` within a few seconds: after a
    /// step failed, a server that does not (stopped, deadlocked) is hung.
    pub fn answers(&self) -> bool {
        use mysql::prelude::Queryable;
        self.connect_with(PROBE_TIMEOUT)
            .and_then(|mut c| c.query_drop("SELECT 1").map_err(Into::into))
            .is_ok()
    }

    /// After a step failed: whether the server is lost, and how. A server
    /// that does not answer gets a few seconds to finish exiting (a killed
    /// server closes its socket before it can be reaped); one still there
    /// then is hung (stopped, deadlocked) and is killed.
    pub fn lost(&mut self) -> Option<Lost> {
        if let Some(status) = self.exited() {
            return Some(Lost::Died(status));
        }
        if self.answers() {
            return None;
        }
        let deadline = Instant::now() + PROBE_TIMEOUT;
        while Instant::now() < deadline {
            if let Some(status) = self.exited() {
                return Some(Lost::Died(status));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        self.kill();
        Some(Lost::Hung)
    }

    /// Kills the server's process group at once (a hung server does not
    /// answer SHUTDOWN and a stopped one ignores SIGTERM).
    pub fn kill(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        children::kill_group(self.pid as i32);
        let _ = self.child.wait();
        children::unregister(self.pid as i32);
    }

    /// None while the server runs; its exit status once it died.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    pub fn error_log_tail(&self) -> String {
        tail_lines(&self.dir.error_log, 30)
    }

    /// Shuts the server down cleanly (SHUTDOWN, then wait); on timeout or
    /// when it cannot be asked, the process group is killed. Returns
    /// whether the shutdown was clean.
    pub fn stop(mut self) -> Result<bool> {
        let clean = self.shutdown();
        Ok(clean)
    }

    /// Shut the server down and keep its run directory until the `Server`
    /// is dropped, so that files it wrote to the end (a page trace) can be
    /// read; whether it shut down cleanly.
    pub fn stop_keeping_files(&mut self) -> bool {
        self.shutdown()
    }

    fn shutdown(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        self.stopped = true;
        let asked = self.connect().and_then(|mut c| {
            use mysql::prelude::Queryable;
            c.query_drop("SHUTDOWN").map_err(Into::into)
        });
        let deadline = Instant::now() + STOP_TIMEOUT;
        let mut clean = false;
        if asked.is_ok() {
            while Instant::now() < deadline {
                if let Ok(Some(status)) = self.child.try_wait() {
                    clean = status.success();
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        if !clean {
            children::terminate_group(self.pid as i32, Duration::from_secs(30));
            let _ = self.child.wait();
        }
        children::unregister(self.pid as i32);
        clean
    }

    pub fn keep_files(&mut self) {
        self.keep = true;
        self.dir.mark_kept();
        children::unregister_dir(&self.dir.root);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown();
        if self.keep {
            eprintln!("    kept the run files in {}", self.dir.root.display());
        } else {
            let _ = fs::remove_dir_all(&self.dir.root);
        }
        children::unregister_dir(&self.dir.root);
    }
}

/// `e` of a server that failed to start, with the sentence naming the
/// filesystem of its run directory when it found no room there (as its
/// error log says, or as the filesystem shows now or showed at its lowest
/// while the step ran).
fn no_room(e: anyhow::Error, dir: &RunDir, lowest_free: Option<u64>) -> anyhow::Error {
    let said = e
        .downcast_ref::<ErrorLogTail>()
        .map(|t| t.0.clone())
        .unwrap_or_default();
    crate::util::space::note_if_no_room(e, &dir.root, &said, lowest_free)
}

/// The datadir of the run directory made, as `user` when the tool runs as
/// root: by MariaDB's install script, or by `mysqld --initialize-insecure`
/// (whose `--defaults-file` must come first). On failure the error carries
/// the tail of the server's log (or of the bootstrap's, when the server
/// wrote none) and the run directory goes unless kept.
fn bootstrap(
    binaries: &ServerBinaries,
    dir: &RunDir,
    user: Option<&user::ServerUser>,
    keep: bool,
) -> Result<()> {
    let mut install = match &binaries.bootstrap {
        Bootstrap::InstallScript { script, args } => Command::new(script.display().to_string())
            .arg(format!("--defaults-file={}", dir.cnf.display()))
            .args(args.iter().cloned())
            .arg(format!("--datadir={}", dir.data.display()))
            .args([
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                "--skip-name-resolve",
            ]),
        Bootstrap::Initialize => Command::new(binaries.server.display().to_string())
            .arg(format!("--defaults-file={}", dir.cnf.display()))
            .arg("--initialize-insecure")
            .arg(format!("--datadir={}", dir.data.display())),
    };
    if let Some(user) = user {
        install = install.arg(format!("--user={}", user.name));
    }
    install = install.deadline(BOOTSTRAP_TIMEOUT);
    let bootstrap_log = dir.root.join("bootstrap.log");
    // a bootstrap on a full filesystem may wait, then die, freeing what it
    // held: only its lowest free space tells that it ran out of room
    let low_water = LowWater::watch(&dir.root);
    let bootstrap = AtStep::injected(Step::Bootstrap, None)
        .and_then(|()| install.run_logged("bootstrap", &bootstrap_log));
    let lowest_free = low_water.lowest();
    if let Err(e) = bootstrap {
        // the server's own log when the bootstrap got that far, else
        // what the install script said
        let log = if dir.error_log.metadata().is_ok_and(|m| m.len() > 0) {
            &dir.error_log
        } else {
            &bootstrap_log
        };
        let tail = tail_lines(log, 30);
        // judged while the run directory still holds what filled its
        // filesystem: a server that found no room may have said nothing
        // (its error log is on that filesystem too)
        let e = no_room(e.context(ErrorLogTail(tail)), dir, lowest_free);
        if !keep {
            let _ = fs::remove_dir_all(&dir.root);
        }
        return Err(e.context(AtStep(Step::Bootstrap)));
    }
    Ok(())
}
