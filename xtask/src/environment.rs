//! The process environment, the one module that reads it: every variable
//! the tool looks at is named here with what it means, read once into an
//! [`Environment`] the first time anything asks (the command's `main` asks
//! first), so a command sees one environment from start to end and nothing
//! below the tasks calls `std::env`. The exceptions are the failure seams
//! of the tests ([`injected_failures`], [`injected_write_failure`]), which
//! in-process tests set and unset around one run and so are read each time
//! they are asked.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Moves the cache (sources, builds, ccache, datadir templates) from
/// `~/.cache/innodb-lab`.
pub const CACHE: &str = "INNODB_LAB_CACHE";
/// Moves the root of tmpfs run directories (and mtr's vardirs) from
/// `/dev/shm/innodb-lab`.
pub const SHM_ROOT: &str = "INNODB_LAB_SHM";
/// Moves the root of disk run directories from `/var/tmp/innodb-lab`.
pub const DISK_ROOT: &str = "INNODB_LAB_DISK";
/// The Debian archive pool paths are read from; a snapshot archive (e.g.
/// http://snapshot.debian.org/archive/debian/20260315T000000Z) keeps every
/// published version at its pool path.
pub const DEBIAN_MIRROR: &str = "INNODB_LAB_DEBIAN_MIRROR";
/// A ccache remote storage shared by the hosts of a sharded matrix
/// (ccache's `remote_storage` syntax, e.g. `file:/mnt/ccache`,
/// `http://cache:8080/ccache`, `redis://cache:6379`).
pub const CCACHE_REMOTE: &str = "INNODB_LAB_CCACHE_REMOTE";
/// The pid of a process that holds the cache lock for this one: a child
/// command of a lock holder (`cargo xtask test` runs `cargo xtask ffi
/// check`; or a wrapper such as flock) names its parent here and goes on
/// under the parent's lock, which the parent holds while it waits.
pub const LOCK_PARENT: &str = "INNODB_LAB_LOCK_PARENT";
/// The test seam: a comma-separated list of steps (`warm-up`) or steps of
/// one workload (`read-only:arm`) that fail as soon as they start.
pub const FAIL_STEP: &str = "INNODB_LAB_FAIL_STEP";
/// The write seam, SQLite's way: the Nth atomic write of this process
/// (1 is the first) fails after its temporary file is written and before
/// the rename, as a full disk or a crash there would leave it.
pub const FAIL_WRITE: &str = "INNODB_LAB_FAIL_WRITE";
/// Set by a test run that rewrites its snapshots instead of comparing
/// with them.
pub const UPDATE_SNAPSHOTS: &str = "UPDATE_SNAPSHOTS";

/// Debian's own archive, where the mirror variable is unset (and where the
/// upload keyrings are always fetched from).
pub const DEFAULT_DEBIAN_MIRROR: &str = "http://deb.debian.org/debian";
const DEFAULT_SHM_ROOT: &str = "/dev/shm/innodb-lab";
/// /var/tmp is on the root filesystem on Debian, never a tmpfs
const DEFAULT_DISK_ROOT: &str = "/var/tmp/innodb-lab";

/// What the environment says, resolved: defaults filled in, empty values
/// taken as unset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    pub home: Option<PathBuf>,
    /// [`CACHE`], else `$HOME/.cache/innodb-lab`
    pub cache: PathBuf,
    /// [`SHM_ROOT`] or its default
    pub shm_root: PathBuf,
    /// [`DISK_ROOT`] or its default
    pub disk_root: PathBuf,
    /// [`DEBIAN_MIRROR`] or deb.debian.org, without a trailing `/`
    pub debian_mirror: String,
    pub ccache_remote: Option<String>,
    pub lock_parent: Option<i32>,
    /// the directories of `PATH`, in order
    pub path: Vec<PathBuf>,
    pub update_snapshots: bool,
}

impl Environment {
    /// Resolves the variables `var` gives (the process's, or a test's).
    pub fn resolve(var: impl Fn(&str) -> Option<OsString>) -> Environment {
        let set = |name: &str| var(name).filter(|v| !v.is_empty());
        let text = |name: &str| set(name).and_then(|v| v.into_string().ok());
        let home = set("HOME").map(PathBuf::from);
        let cache = set(CACHE).map(PathBuf::from).unwrap_or_else(|| {
            home.clone()
                .unwrap_or_else(|| "/root".into())
                .join(".cache")
                .join("innodb-lab")
        });
        Environment {
            cache,
            shm_root: set(SHM_ROOT).map_or_else(|| DEFAULT_SHM_ROOT.into(), PathBuf::from),
            disk_root: set(DISK_ROOT).map_or_else(|| DEFAULT_DISK_ROOT.into(), PathBuf::from),
            debian_mirror: text(DEBIAN_MIRROR)
                .unwrap_or_else(|| DEFAULT_DEBIAN_MIRROR.into())
                .trim_end_matches('/')
                .to_string(),
            ccache_remote: text(CCACHE_REMOTE),
            lock_parent: text(LOCK_PARENT).and_then(|p| p.parse().ok()),
            path: set("PATH")
                .map(|p| std::env::split_paths(&p).collect())
                .unwrap_or_default(),
            update_snapshots: var(UPDATE_SNAPSHOTS).is_some(),
            home,
        }
    }

    /// The first executable file called `program` in `PATH`.
    pub fn find_program(&self, program: &str) -> Option<PathBuf> {
        self.path
            .iter()
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    }

    /// Whether `dir` is the home directory (resolved through links).
    pub fn is_home(&self, dir: &Path) -> bool {
        let resolved = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        self.home
            .as_deref()
            .is_some_and(|h| resolved(h) == resolved(dir))
    }
}

/// This process's environment, read the first time it is asked.
pub fn current() -> &'static Environment {
    static CURRENT: OnceLock<Environment> = OnceLock::new();
    CURRENT.get_or_init(|| Environment::resolve(|name| std::env::var_os(name)))
}

/// The steps [`FAIL_STEP`] asks to fail, as written (`warm-up`,
/// `read-only:arm`); empty when it is unset.
pub fn injected_failures() -> Vec<String> {
    std::env::var(FAIL_STEP)
        .map(|list| {
            list.split(',')
                .filter(|e| !e.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// The write [`FAIL_WRITE`] asks to fail; None when it is unset. Read each
/// time, as [`injected_failures`], since a test sets it around one run.
pub fn injected_write_failure() -> Option<u64> {
    std::env::var(FAIL_WRITE).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn resolved(vars: &[(&str, &str)]) -> Environment {
        let vars: BTreeMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        Environment::resolve(|name| vars.get(name).cloned())
    }

    #[test]
    fn defaults_fill_what_is_unset_or_empty() {
        let e = resolved(&[("HOME", "/home/dev"), (CACHE, ""), (DEBIAN_MIRROR, "")]);
        assert_eq!(e.cache, Path::new("/home/dev/.cache/innodb-lab"));
        assert_eq!(e.shm_root, Path::new("/dev/shm/innodb-lab"));
        assert_eq!(e.disk_root, Path::new("/var/tmp/innodb-lab"));
        assert_eq!(e.debian_mirror, "http://deb.debian.org/debian");
        assert_eq!(e.ccache_remote, None);
        assert_eq!(e.lock_parent, None);
        assert!(!e.update_snapshots);
    }

    #[test]
    fn each_variable_moves_what_it_names() {
        let e = resolved(&[
            ("HOME", "/home/dev"),
            (CACHE, "/srv/cache"),
            (SHM_ROOT, "/dev/shm/other"),
            (DISK_ROOT, "/srv/disk"),
            (
                DEBIAN_MIRROR,
                "http://snapshot.debian.org/archive/debian/20260315T000000Z/",
            ),
            (CCACHE_REMOTE, "redis://cache:6379"),
            (LOCK_PARENT, "4242"),
            ("PATH", "/opt/bin:/usr/bin"),
            (UPDATE_SNAPSHOTS, "1"),
        ]);
        assert_eq!(e.cache, Path::new("/srv/cache"));
        assert_eq!(e.shm_root, Path::new("/dev/shm/other"));
        assert_eq!(e.disk_root, Path::new("/srv/disk"));
        assert_eq!(
            e.debian_mirror,
            "http://snapshot.debian.org/archive/debian/20260315T000000Z"
        );
        assert_eq!(e.ccache_remote.as_deref(), Some("redis://cache:6379"));
        assert_eq!(e.lock_parent, Some(4242));
        assert_eq!(e.path, [Path::new("/opt/bin"), Path::new("/usr/bin")]);
        assert!(e.update_snapshots);
    }
}
