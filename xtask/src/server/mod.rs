//! Servers: a my.cnf from Mark Callaghan's settings scaled to this host, a
//! datadir on /dev/shm bootstrapped by the tree's own install script, a
//! `mariadbd` in its own process group listening on a unix socket only,
//! and a clean shutdown (or SIGKILL) on every exit path.

mod callgrind;
mod run_root;
mod staged;
pub mod user;

use crate::children;
use crate::dims::{AtStep, CnfFamily, ErrorLogTail, Series, Step};
use crate::host::Host;
use crate::record::Build;
use crate::record::{MyCnf, Scaled};
use crate::util::{tail_lines, Child, Command};
use anyhow::{bail, Context, Result};
pub use callgrind::Callgrind;
pub use run_root::{is_tmpfs, shm_root, trusted_shm_root, RunRoot};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use user::ServerUser;

/// How to bootstrap and start one server binary.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerBinaries {
    pub mariadbd: PathBuf,
    pub install_db: PathBuf,
    /// e.g. `--srcdir`/`--builddir` for a build tree
    pub install_db_args: Vec<String>,
    /// my.cnf lines that locate the binary's files (messages, charsets)
    pub location_settings: Vec<(String, String)>,
}

impl ServerBinaries {
    pub fn from_build(build: &Build) -> Result<ServerBinaries> {
        Ok(ServerBinaries {
            mariadbd: build.mariadbd.clone(),
            install_db: crate::build::install_db_script(&build.build)?,
            install_db_args: vec![
                format!("--srcdir={}", build.src.display()),
                format!("--builddir={}", build.build.display()),
            ],
            location_settings: vec![
                (
                    "lc_messages_dir".into(),
                    build.build.join("sql/share").display().to_string(),
                ),
                (
                    "character_sets_dir".into(),
                    build.src.join("sql/share/charsets").display().to_string(),
                ),
            ],
        })
    }

    /// A packaged server: its own install script, its compiled-in paths.
    pub fn from_package(mariadbd: &Path) -> Result<ServerBinaries> {
        let prefix = mariadbd
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new("/usr"));
        let install_db = [
            "bin/mariadb-install-db",
            "bin/mysql_install_db",
            "scripts/mariadb-install-db",
        ]
        .iter()
        .map(|p| prefix.join(p))
        .find(|p| p.exists())
        .with_context(|| format!("no mariadb-install-db under {}/bin", prefix.display()))?;
        Ok(ServerBinaries {
            mariadbd: mariadbd.to_path_buf(),
            install_db,
            install_db_args: vec![format!("--basedir={}", prefix.display())],
            location_settings: Vec::new(),
        })
    }
}

const GIB: u64 = 1 << 30;

impl MyCnf {
    /// Mark Callaghan's z12a/z12b settings (shared/research/mark-setup.md,
    /// section 1) for `series`, scaled to `host`. `tmpfs_datadir` is true
    /// for the usual /dev/shm datadir, which cannot do O_DIRECT.
    pub fn for_series(series: Series, host: &Host, tmpfs_datadir: bool) -> MyCnf {
        let family = series.cnf_family();
        let family_old = family == CnfFamily::Classic;
        let family_11 = family == CnfFamily::Eleven;
        let mut cnf = MyCnf {
            settings: Vec::new(),
            scaled: Vec::new(),
            datadir_on_tmpfs: Some(tmpfs_datadir),
        };
        let common = [
            ("sql_mode", "no_engine_substitution,no_unsigned_subtraction"),
            ("default_tmp_storage_engine", "MyISAM"),
            ("query_cache_size", "0"),
            ("query_cache_type", "0"),
            ("long_query_time", "5"),
            ("slow_query_log", "1"),
            ("max_binlog_size", "256M"),
            ("server_id", "77"),
            ("binlog_format", "ROW"),
            ("sync_binlog", "0"),
            ("innodb_file_per_table", "1"),
            ("innodb_data_file_path", "ibdata1:512M:autoextend"),
            ("performance_schema", "1"),
            ("ssl", "0"),
            ("character_set_server", "latin1"),
            ("collation_server", "latin1_swedish_ci"),
            ("eq_range_index_dive_limit", "10"),
            ("innodb_fast_shutdown", "1"),
            ("innodb_doublewrite", "1"),
            ("innodb_autoinc_lock_mode", "2"),
            ("innodb_flush_neighbors", "0"),
            ("innodb_buffer_pool_load_at_startup", "OFF"),
            ("innodb_buffer_pool_dump_at_shutdown", "OFF"),
            ("innodb_flush_log_at_trx_commit", "2"),
            ("innodb_max_dirty_pages_pct_lwm", "80"),
            ("innodb_max_dirty_pages_pct", "90"),
            ("innodb_io_capacity", "10000"),
            ("innodb_io_capacity_max", "20000"),
            ("innodb_adaptive_hash_index", "OFF"),
            ("innodb_undo_tablespaces", "32"),
            ("innodb_checksum_algorithm", "crc32"),
            ("innodb_max_purge_lag", "500000"),
            ("innodb_max_purge_lag_delay", "1000000"),
        ];
        for (k, v) in common {
            cnf.set(k, v);
        }
        // removed in 11.x: ignored there rather than refused
        let version_sensitive = [
            ("innodb_change_buffering", "none"),
            ("innodb_log_write_ahead_size", "4096"),
        ];
        for (k, v) in version_sensitive {
            cnf.set(
                &if family_11 {
                    format!("loose_{k}")
                } else {
                    k.to_string()
                },
                v,
            );
        }

        let half_cores = (host.cores / 2).clamp(1, 8);
        let threads = half_cores.to_string();
        for name in [
            "innodb_purge_threads",
            "innodb_read_io_threads",
            "innodb_write_io_threads",
        ] {
            cnf.scale(
                name,
                "8",
                &threads,
                "Mark uses 8 on 48 cores and 4 on 8 cores: half the cores, at most 8",
            );
        }
        let pool_gib = (host.memory_bytes / GIB / 4).clamp(1, 100);
        cnf.scale(
            "innodb_buffer_pool_size",
            "100G",
            &format!("{pool_gib}G"),
            "Mark's 100G is for 128G of RAM; here a quarter of RAM, as the datadir on /dev/shm also takes RAM",
        );
        let log_gib = (host.memory_bytes / GIB / 16).clamp(1, 100);
        if family_old {
            cnf.set("innodb_buffer_pool_instances", "8");
            cnf.set("innodb_page_cleaners", "8");
            cnf.set("innodb_concurrency_tickets", "1000000");
            cnf.set("innodb_log_files_in_group", "2");
            cnf.scale(
                "innodb_log_file_size",
                "10G",
                &format!("{}M", log_gib * 512),
                "redo lives on /dev/shm: 1/16 of RAM in all, split over 2 files (Mark: 10 x 10G)",
            );
        } else {
            cnf.scale(
                "innodb_log_file_size",
                "100G",
                &format!("{log_gib}G"),
                "redo lives on /dev/shm (RAM): 1/16 of RAM",
            );
            cnf.set("innodb_lru_scan_depth", "5000");
        }
        if family_11 {
            cnf.set("innodb_log_file_buffering", "1");
            cnf.set("innodb_log_file_write_through", "0");
            cnf.scale(
                "innodb_data_file_buffering",
                "0",
                if tmpfs_datadir { "1" } else { "0" },
                "tmpfs has no O_DIRECT",
            );
            cnf.set("innodb_data_file_write_through", "0");
            if series >= Series::V11_8 {
                cnf.set("innodb_snapshot_isolation", "0");
            }
        } else {
            cnf.scale(
                "innodb_flush_method",
                "O_DIRECT_NO_FSYNC",
                if tmpfs_datadir {
                    "fsync"
                } else {
                    "O_DIRECT_NO_FSYNC"
                },
                "tmpfs has no O_DIRECT",
            );
        }
        cnf
    }

    /// Sets (or replaces) a setting as Mark has it.
    pub fn set(&mut self, name: &str, value: &str) {
        match self.settings.iter_mut().find(|(k, _)| k == name) {
            Some(entry) => entry.1 = value.to_string(),
            None => self.settings.push((name.to_string(), value.to_string())),
        }
    }

    fn scale(&mut self, name: &str, mark: &str, here: &str, why: &str) {
        self.set(name, here);
        if mark != here {
            self.scaled.push(Scaled {
                name: name.into(),
                mark: mark.into(),
                here: here.into(),
                why: why.into(),
            });
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.settings
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The whole file for a run whose files live in `dir`, for a server
    /// that runs as `user` (None: as the tool's own user).
    pub fn render(
        &self,
        dir: &RunDir,
        binaries: &ServerBinaries,
        user: Option<&ServerUser>,
    ) -> String {
        let mut out = String::from(
            "# written by innodb-lab: Mark Callaghan's settings scaled to this host\n",
        );
        out.push_str("[client-server]\nssl=0\n\n[mariadbd]\n");
        // Mark's settings and the variant's first: the tool's own lines
        // come last, and in an option file the last line wins (variant
        // settings cannot name them anyway: crate::settings)
        for (k, v) in &self.settings {
            out.push_str(&format!("{k}={v}\n"));
        }
        let paths = [
            ("datadir", dir.data.display().to_string()),
            ("innodb_data_home_dir", dir.data.display().to_string()),
            ("innodb_log_group_home_dir", dir.data.display().to_string()),
            ("tmpdir", dir.tmp.display().to_string()),
            ("socket", dir.socket.display().to_string()),
            (
                "pid_file",
                dir.root.join("mariadbd.pid").display().to_string(),
            ),
            ("log_error", dir.error_log.display().to_string()),
            ("log_bin", dir.root.join("binlogs/bl").display().to_string()),
            // LOAD DATA / SELECT INTO OUTFILE only inside the run directory
            ("secure_file_priv", dir.files().display().to_string()),
            // unix socket only: nothing listens on the network
            ("skip_networking", "1".to_string()),
        ];
        for (k, v) in paths.iter().map(|(k, v)| (*k, v.as_str())).chain(
            binaries
                .location_settings
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str())),
        ) {
            out.push_str(&format!("{k}={v}\n"));
        }
        if let Some(user) = user {
            out.push_str(&format!("user={}\n", user.name));
        }
        out
    }
}

/// The server's socket, in its run directory.
const SOCKET_FILE: &str = "mariadbd.sock";

/// The longest path a unix socket can have: `sun_path` is 108 bytes with
/// the terminating NUL.
pub const SOCKET_PATH_MAX: usize = 107;

/// The files of one run: all under its run root (/dev/shm by default),
/// removed afterwards unless kept.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunDir {
    pub root: PathBuf,
    pub data: PathBuf,
    pub tmp: PathBuf,
    pub socket: PathBuf,
    pub error_log: PathBuf,
    pub cnf: PathBuf,
}

/// The variable that tells a traced server where to write its page trace.
pub const PAGE_TRACE_ENV: &str = "INNODB_LAB_TRACE";

impl RunDir {
    /// Where a traced server writes its page trace: the server's own tmpdir,
    /// which its user may write; kept with the run directory (`--keep`).
    pub fn page_trace(&self) -> PathBuf {
        self.tmp.join("page-trace.bin")
    }
}

/// A random password (32 hex digits from the kernel's generator).
fn random_password() -> Result<String> {
    let mut bytes = [0u8; 16];
    use std::io::Read;
    fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(hex::encode(bytes))
}

/// Writes a file only its owner may read (0600), from creation on.
fn write_private(path: &Path, text: &str) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    f.write_all(text.as_bytes())?;
    Ok(())
}

impl RunDir {
    /// secure_file_priv: the only directory the server reads or writes
    /// files in for SQL statements
    pub fn files(&self) -> PathBuf {
        self.root.join("files")
    }

    /// The root password of this run's server (0600, in the 0700 run
    /// directory), set by `init.sql` before the server accepts anyone.
    pub fn password_file(&self) -> PathBuf {
        self.root.join("root.password")
    }

    /// sysbench's options file with the password: never on a command
    /// line, which every local user can read in /proc.
    pub fn sysbench_options(&self) -> PathBuf {
        self.root.join("sysbench.cfg")
    }

    pub fn password(&self) -> Result<String> {
        Ok(fs::read_to_string(self.password_file())
            .with_context(|| format!("cannot read {}", self.password_file().display()))?
            .trim()
            .to_string())
    }

    /// The password files (the tool's alone) and init.sql that sets the
    /// password (the server's, which reads it after dropping privileges).
    fn write_credentials(&self, user: Option<&ServerUser>) -> Result<PathBuf> {
        let password = random_password()?;
        write_private(&self.password_file(), &format!("{password}\n"))?;
        write_private(
            &self.sysbench_options(),
            &format!("mysql-password={password}\n"),
        )?;
        let init = self.root.join("init.sql");
        write_private(
            &init,
            &format!("ALTER USER 'root'@'localhost' IDENTIFIED BY '{password}';\n"),
        )?;
        user::hand_over(&init, user)?;
        Ok(init)
    }

    /// Marks the directory as kept (`--keep`): no later run removes it.
    fn mark_kept(&self) {
        let _ = fs::write(
            self.root.join(crate::stale::KEPT_FILE),
            "kept by --keep: the tool never removes this directory; remove it by hand\n",
        );
    }

    /// The directory of the run named `name` for the tool process `pid`.
    fn root_for(runs: &RunRoot, name: &str, pid: u32) -> PathBuf {
        runs.path.join(format!("{}-{pid}", crate::util::slug(name)))
    }

    /// The longest socket path a run named `name` can get, whatever the
    /// tool's pid (Linux's pids have at most 7 digits).
    pub fn longest_socket_path(runs: &RunRoot, name: &str) -> PathBuf {
        Self::root_for(runs, name, 9_999_999).join(SOCKET_FILE)
    }

    /// A new run directory under `runs`, 0700, owned by the server's
    /// `user` when that is not the tool's own.
    pub fn create(runs: &RunRoot, name: &str, user: Option<&ServerUser>) -> Result<RunDir> {
        let base = runs.trusted()?.to_path_buf();
        let root = Self::root_for(runs, name, std::process::id());
        if root.join(crate::stale::KEPT_FILE).exists() {
            bail!(
                "{} was kept by --keep in an earlier run whose tool had this pid: it is never \
                 removed by the tool; remove it by hand",
                root.display()
            );
        }
        if root.exists() {
            fs::remove_dir_all(&root)?;
        }
        let dir = RunDir {
            data: root.join("data"),
            tmp: root.join("tmp"),
            socket: root.join(SOCKET_FILE),
            error_log: root.join("error.log"),
            cnf: root.join("my.cnf"),
            root,
        };
        fs::create_dir_all(&base).with_context(|| format!("cannot create {}", base.display()))?;
        if let Some(user) = user {
            user::check_reachable(&base, user)?;
            // the server's user must pass through to its own directory;
            // it may not list the others
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&base)?.permissions().mode() & 0o7777;
            if mode & 0o001 == 0 {
                fs::set_permissions(&base, fs::Permissions::from_mode(mode | 0o711))?;
            }
        }
        // 0700 from the start: no other local user may enter, so none can
        // reach the socket or read the data
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir.root)
            .with_context(|| format!("cannot create {}", dir.root.display()))?;
        // first, so that a tool that dies from here on leaves a directory
        // the next start recognises (crate::stale)
        fs::write(
            dir.root.join(crate::stale::TOOL_PID_FILE),
            crate::stale::tool_pid_text(),
        )?;
        for d in [&dir.data, &dir.tmp, &dir.root.join("binlogs"), &dir.files()] {
            fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
            user::hand_over(d, user)?;
        }
        user::hand_over(&dir.root, user)?;
        Ok(dir)
    }
}

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
    child: Child,
    pub dir: RunDir,
    keep: bool,
    stopped: bool,
    /// the switch of a server started under callgrind
    pub callgrind: Option<Callgrind>,
}

/// How the server process starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launch {
    /// `mariadbd` itself, as root when the tool is root (it drops to its
    /// user after reading its files)
    Native,
    /// under Valgrind's callgrind, instrumentation off, as the server's
    /// user from the start (`profile::callgrind` says why), from a copy of
    /// the binary in the run directory
    Callgrind,
}

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
    /// `runs`) with the tree's own install script and starts mariadbd,
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
        let mut install = Command::new(binaries.install_db.display().to_string())
            .arg(format!("--defaults-file={}", dir.cnf.display()))
            .args(binaries.install_db_args.iter().cloned())
            .arg(format!("--datadir={}", dir.data.display()))
            .args([
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                "--skip-name-resolve",
            ]);
        if let Some(user) = &user {
            install = install.arg(format!("--user={}", user.name));
        }
        install = install.deadline(BOOTSTRAP_TIMEOUT);
        let bootstrap_log = dir.root.join("bootstrap.log");
        let bootstrap = AtStep::injected(Step::Bootstrap, None)
            .and_then(|()| install.run_logged("bootstrap", &bootstrap_log));
        if let Err(e) = bootstrap {
            // the server's own log when the bootstrap got that far, else
            // what the install script said
            let log = if dir.error_log.exists() {
                &dir.error_log
            } else {
                &bootstrap_log
            };
            let tail = tail_lines(log, 30);
            if !keep {
                let _ = fs::remove_dir_all(&dir.root);
            }
            return Err(e
                .context(ErrorLogTail(tail))
                .context(AtStep(Step::Bootstrap)));
        }

        let stdout = fs::File::create(dir.root.join("mariadbd.out"))?;
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
                Command::new(binaries.mariadbd.display().to_string())
                    .args(server_args)
                    .env(PAGE_TRACE_ENV, dir.page_trace().display().to_string()),
                START_TIMEOUT,
            ),
            Launch::Callgrind => {
                fs::create_dir_all(&callgrind_dir)?;
                user::hand_over(&callgrind_dir, user.as_ref())?;
                let mut c = Command::new("valgrind")
                    .args(Callgrind::wrapper_args(&callgrind_dir))
                    .arg(run_binaries.mariadbd.display().to_string())
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
            child,
            dir,
            keep,
            stopped: false,
            callgrind,
        };
        // a server that does not come up is stopped by its Drop
        AtStep::injected(Step::Start, None)
            .and_then(|()| server.wait_ready(start_timeout))
            .context(AtStep(Step::Start))?;
        Ok(server)
    }

    fn wait_ready(&mut self, timeout: Duration) -> Result<()> {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait()? {
                self.stopped = true;
                children::unregister(self.pid as i32);
                return Err(anyhow::Error::new(ErrorLogTail(self.error_log_tail()))
                    .context(format!("mariadbd exited during start-up ({status})")));
            }
            if self.dir.socket.exists() && self.connect().is_ok() {
                return Ok(());
            }
            if start.elapsed() > timeout {
                return Err(
                    anyhow::Error::new(ErrorLogTail(self.error_log_tail())).context(format!(
                        "mariadbd did not accept connections within {} s",
                        timeout.as_secs()
                    )),
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn host(cores: usize, gib: u64) -> Host {
        Host {
            hostname: "h".into(),
            cores,
            memory_bytes: gib * GIB,
            kernel: "6".into(),
            cpu_model: "x".into(),
        }
    }

    #[test]
    fn scales_marks_settings_to_a_small_host() {
        let cnf = MyCnf::for_series(Series::V10_11, &host(2, 24), true);
        assert_eq!(cnf.get("innodb_buffer_pool_size"), Some("6G"));
        assert_eq!(cnf.get("innodb_purge_threads"), Some("1"));
        assert_eq!(cnf.get("innodb_log_file_size"), Some("1G"));
        assert_eq!(cnf.get("innodb_flush_method"), Some("fsync"));
        assert_eq!(cnf.get("innodb_lru_scan_depth"), Some("5000"));
        assert_eq!(
            cnf.get("innodb_buffer_pool_instances"),
            None,
            "removed in 10.5"
        );
        let names: Vec<&str> = cnf.scaled.iter().map(|s| s.name.as_str()).collect();
        assert!(
            names.contains(&"innodb_buffer_pool_size") && names.contains(&"innodb_flush_method")
        );
    }

    #[test]
    fn a_big_host_gets_marks_values() {
        let cnf = MyCnf::for_series(Series::V10_11, &host(48, 400), false);
        assert_eq!(cnf.get("innodb_purge_threads"), Some("8"));
        assert_eq!(cnf.get("innodb_flush_method"), Some("O_DIRECT_NO_FSYNC"));
        assert!(!cnf.scaled.iter().any(|s| s.name == "innodb_purge_threads"));
    }

    #[test]
    fn series_families() {
        let old = MyCnf::for_series(Series::V10_4, &host(8, 32), true);
        assert_eq!(old.get("innodb_buffer_pool_instances"), Some("8"));
        let new = MyCnf::for_series(Series::V11_8, &host(8, 32), true);
        assert_eq!(new.get("innodb_snapshot_isolation"), Some("0"));
        assert_eq!(new.get("loose_innodb_change_buffering"), Some("none"));
        assert_eq!(new.get("innodb_flush_method"), None);
    }

    #[test]
    fn rendered_file_is_socket_only() {
        let cnf = MyCnf::for_series(Series::V10_11, &host(2, 24), true);
        let dir = RunDir {
            root: "/r".into(),
            data: "/r/data".into(),
            tmp: "/r/tmp".into(),
            socket: "/r/s.sock".into(),
            error_log: "/r/e.log".into(),
            cnf: "/r/my.cnf".into(),
        };
        let bin = ServerBinaries {
            mariadbd: "/b/mariadbd".into(),
            install_db: "/b/install".into(),
            install_db_args: vec![],
            location_settings: vec![("lc_messages_dir".into(), "/b/share".into())],
        };
        let text = cnf.render(&dir, &bin, None);
        assert!(text.contains("\nskip_networking=1\n") && text.contains("\nsocket=/r/s.sock\n"));
        assert!(text.contains("\nlc_messages_dir=/b/share\n"));
        assert!(!text.contains("bind_address") && !text.contains("port="));
        assert!(!text.contains("user="));
        let user = ServerUser {
            name: "innodb-lab".into(),
            uid: 998,
            gid: 998,
        };
        let text = cnf.render(&dir, &bin, Some(&user));
        assert!(text.ends_with("\nuser=innodb-lab\n"), "{text}");
    }
}
