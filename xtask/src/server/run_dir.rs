//! One run's directory under its run root: the datadir, tmpdir, socket,
//! error log and my.cnf, and the credentials only the tool and the
//! server's user may read.

use super::run_root::RunRoot;
use super::user::{self, ServerUser};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// The server's socket, in its run directory: a short name, since the
/// directory's name (server, pid and run) takes most of the 107 bytes.
const SOCKET_FILE: &str = "sock";

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
    pub(super) fn write_credentials(&self, user: Option<&ServerUser>) -> Result<PathBuf> {
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
    pub(super) fn mark_kept(&self) {
        let _ = fs::write(
            self.root.join(crate::stale::KEPT_FILE),
            "kept by --keep: the tool never removes this directory; remove it by hand\n",
        );
    }

    /// The directory of the `seq`-th run the tool process `pid` made, for
    /// the server named `name`. The pid keeps processes apart and `seq`
    /// runs of one process: two matrices in one process (tests on threads)
    /// may run servers of the same name at once.
    pub(super) fn root_for(runs: &RunRoot, name: &str, pid: u32, seq: u32) -> PathBuf {
        runs.path
            .join(format!("{}-{pid}-{seq:x}", crate::util::slug(name)))
    }

    /// The server name in a run directory's name (`root_for`'s), or None
    /// for a directory this tool did not name so.
    pub fn server_of(dir_name: &str) -> Option<&str> {
        let (rest, seq) = dir_name.rsplit_once('-')?;
        let (server, pid) = rest.rsplit_once('-')?;
        let hex = !seq.is_empty() && seq.chars().all(|c| c.is_ascii_hexdigit());
        let digits = !pid.is_empty() && pid.chars().all(|c| c.is_ascii_digit());
        (hex && digits && !server.is_empty()).then_some(server)
    }

    /// The longest socket path a run named `name` can get, whatever the
    /// tool's pid (Linux's pids have at most 7 digits) and however many
    /// runs it made before.
    pub fn longest_socket_path(runs: &RunRoot, name: &str) -> PathBuf {
        Self::root_for(runs, name, 9_999_999, u32::MAX).join(SOCKET_FILE)
    }

    /// A new run directory under `runs`, 0700, owned by the server's
    /// `user` when that is not the tool's own.
    pub fn create(runs: &RunRoot, name: &str, user: Option<&ServerUser>) -> Result<RunDir> {
        static RUNS_MADE: AtomicU32 = AtomicU32::new(0);
        let base = runs.trusted()?.to_path_buf();
        let seq = RUNS_MADE.fetch_add(1, Ordering::Relaxed);
        let root = Self::root_for(runs, name, std::process::id(), seq);
        if root.join(crate::stale::KEPT_FILE).exists() {
            bail!(
                "{} was kept by --keep in an earlier run whose tool had this pid: it is never \
                 removed by the tool; remove it by hand",
                root.display()
            );
        }
        // left by a tool that had this pid and died before stale::clean saw it
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dims::Datadir;

    /// Two runs of one server name in one process (two matrices on two
    /// threads) get two directories: neither removes the other's files.
    #[test]
    fn runs_of_one_name_in_one_process_get_directories_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let runs = RunRoot {
            path: dir.path().join("runs"),
            datadir: Datadir::Tmpfs,
        };
        let first = RunDir::create(&runs, "10.11.18-base-rep1", None).unwrap();
        fs::write(first.root.join("marker"), "first").unwrap();
        let second = RunDir::create(&runs, "10.11.18-base-rep1", None).unwrap();
        assert_ne!(first.root, second.root);
        assert_eq!(
            fs::read_to_string(first.root.join("marker")).unwrap(),
            "first"
        );
        assert!(second.root.join(crate::stale::TOOL_PID_FILE).is_file());
        let longest = RunDir::longest_socket_path(&runs, "10.11.18-base-rep1");
        for d in [&first, &second] {
            assert!(d.socket.as_os_str().len() <= longest.as_os_str().len());
            let name = d.root.file_name().unwrap().to_str().unwrap();
            assert_eq!(RunDir::server_of(name), Some("10.11.18-base-rep1"));
        }
        assert_eq!(RunDir::server_of("mtr-slots"), None);
        assert_eq!(RunDir::server_of("10.11.18-gate-rep2-4711"), None);
    }
}
