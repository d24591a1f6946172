//! The root of the run directories: one per kind of datadir (tmpfs or
//! disk), the tool's own, and the one place that says whether the
//! datadirs under it are on a tmpfs (which decides the server's flush
//! settings and what the record says a miss cost).

use crate::dims::Datadir;
use anyhow::{bail, Context, Result};
use std::fs;
use std::path::{Path, PathBuf};

/// Where the run directories of a matrix's servers go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRoot {
    pub path: PathBuf,
    /// what the matrix asked for
    pub datadir: Datadir,
}

impl RunRoot {
    /// The root for `datadir`: its environment variable, else its default
    /// (`/dev/shm/innodb-lab`, `/var/tmp/innodb-lab`).
    pub fn of(datadir: Datadir) -> RunRoot {
        let env = crate::environment::current();
        RunRoot {
            path: match datadir {
                Datadir::Tmpfs => env.shm_root.clone(),
                Datadir::Disk => env.disk_root.clone(),
            },
            datadir,
        }
    }

    /// The root, made the tool's own (see `trusted_dir`).
    pub fn trusted(&self) -> Result<&Path> {
        trusted_dir(&self.path, self.datadir)?;
        Ok(&self.path)
    }

    /// Whether the datadirs under this root are on a tmpfs: asked of the
    /// filesystem (the nearest directory that exists), not of the name, so
    /// a root moved by its environment variable is labelled as it is.
    pub fn on_tmpfs(&self) -> bool {
        self.path
            .ancestors()
            .find(|p| p.exists())
            .is_some_and(is_tmpfs)
    }

    /// A matrix that asked for a disk gets one: a root on a tmpfs would
    /// measure memory copies and label them disk reads.
    pub fn check(&self) -> Result<()> {
        if self.datadir == Datadir::Disk && self.on_tmpfs() {
            let env = self.datadir.root_env();
            bail!(
                "the matrix asks for datadir = \"disk\", but {} is on a tmpfs: set {env} to a \
                 directory on a disk",
                self.path.display()
            );
        }
        Ok(())
    }
}

/// Where tmpfs run directories live: `/dev/shm/innodb-lab`, or
/// `INNODB_LAB_SHM` (mtr's vardirs go there too).
pub fn shm_root() -> PathBuf {
    RunRoot::of(Datadir::Tmpfs).path
}

/// `shm_root`, made the tool's own.
pub fn trusted_shm_root() -> Result<PathBuf> {
    let root = RunRoot::of(Datadir::Tmpfs);
    root.trusted()?;
    Ok(root.path)
}

/// Makes sure a root of run directories is the tool's own: created 0700
/// when missing; refused, with the fix, when another user owns it or
/// anyone else may write in it (a directory another local user controls
/// could hold a planted `tool.pid`, a symlink for a datadir, or a socket).
pub(super) fn trusted_dir(root: &Path, datadir: Datadir) -> Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    let env = datadir.root_env();
    if !root.exists() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(root)
            .with_context(|| format!("cannot create {}", root.display()))?;
    }
    let meta =
        fs::symlink_metadata(root).with_context(|| format!("cannot read {}", root.display()))?;
    let me = rustix::process::geteuid().as_raw();
    let mode = meta.permissions().mode() & 0o7777;
    if !meta.is_dir() || meta.file_type().is_symlink() {
        bail!(
            "{} is not a directory of the tool's own (a symlink or a file): remove it, or set \
             {env} to a directory of your own",
            root.display()
        );
    }
    if meta.uid() != me {
        bail!(
            "{} belongs to uid {}, not to this user (uid {me}): the tool keeps its run \
             directories only in a directory of its own; remove it, or set {env}",
            root.display(),
            meta.uid()
        );
    }
    if mode & 0o022 != 0 {
        bail!(
            "{} can be written by other users (mode {mode:o}): `chmod go-w {}`, or set \
             {env} to a directory of your own",
            root.display(),
            root.display()
        );
    }
    Ok(())
}

/// Whether `path` is on a tmpfs (statfs magic), as /dev/shm is.
pub fn is_tmpfs(path: &Path) -> bool {
    rustix::fs::statfs(path).is_ok_and(|st| st.f_type == libc::TMPFS_MAGIC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_root_must_be_the_tools_own() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("runs");
        trusted_dir(&fresh, Datadir::Tmpfs).unwrap();
        let mode = fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        fs::set_permissions(&fresh, fs::Permissions::from_mode(0o777)).unwrap();
        let err = trusted_dir(&fresh, Datadir::Tmpfs).unwrap_err().to_string();
        assert!(
            err.contains("can be written by other users (mode 777)") && err.contains("chmod go-w"),
            "{err}"
        );
        fs::set_permissions(&fresh, fs::Permissions::from_mode(0o711)).unwrap();
        trusted_dir(&fresh, Datadir::Tmpfs).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fresh, &link).unwrap();
        assert!(trusted_dir(&link, Datadir::Tmpfs)
            .unwrap_err()
            .to_string()
            .contains("symlink"));
        // a directory of another user: /tmp is root's (and sticky, world-writable)
        assert!(trusted_dir(Path::new("/tmp"), Datadir::Tmpfs).is_err());
    }

    #[test]
    fn a_disk_root_on_a_tmpfs_is_refused_and_labels_follow_the_filesystem() {
        let on_shm = RunRoot {
            path: "/dev/shm/innodb-lab-test-root-not-made".into(),
            datadir: Datadir::Disk,
        };
        assert!(on_shm.on_tmpfs());
        let err = on_shm.check().unwrap_err().to_string();
        assert!(err.contains("INNODB_LAB_DISK"), "{err}");
        let on_disk = RunRoot {
            path: "/var/tmp/innodb-lab-test-root-not-made".into(),
            datadir: Datadir::Disk,
        };
        assert!(!on_disk.on_tmpfs());
        on_disk.check().unwrap();
        // a tmpfs root moved onto a disk says so
        let moved = RunRoot {
            path: "/var/tmp/x".into(),
            datadir: Datadir::Tmpfs,
        };
        assert!(!moved.on_tmpfs());
    }
}
