//! Whom the measured server runs as. A tool run by an ordinary user starts
//! the server as that user. A tool run as root must not hand root to a
//! server that any local user's mistake or a matrix setting could turn
//! against the host: the server then runs as the unprivileged system user
//! [`SERVER_USER`], created by `tools/install-deps.sh`.
//!
//! The binary, its error messages and its compiled-in character sets are
//! read by mariadbd before it drops privileges (`init_common_variables()`
//! runs before `set_user()` in sql/mysqld.cc), so the build directories
//! under root's home stay closed to that user. Only the run directory on
//! /dev/shm is handed to it.
//!
//! Linux clears a parent-death signal when a process changes its user, so a
//! server that dropped privileges outlives a tool killed with SIGKILL until
//! the next start finds it (crate::stale), as the server's pid file says.

use anyhow::{bail, Result};
use std::ffi::CString;
use std::path::Path;

/// The system user a server started by root runs as.
pub const SERVER_USER: &str = "innodb-lab";

/// A user the server runs as, when it is not the tool's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerUser {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

/// Whether the tool runs as root.
pub fn tool_is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// `None` when the server runs as the tool's own user; the system user
/// when the tool is root; an error saying how to create it when it is
/// missing.
pub fn server_user() -> Result<Option<ServerUser>> {
    if !tool_is_root() {
        return Ok(None);
    }
    match lookup(SERVER_USER)? {
        Some(user) if user.uid == 0 => bail!(
            "the system user {SERVER_USER} has uid 0; the server would run as root: \
             give it an unprivileged uid"
        ),
        Some(user) => Ok(Some(user)),
        None => bail!(
            "the tool runs as root, and the servers it starts must not: the system user \
             {SERVER_USER} they run as does not exist; create it with tools/install-deps.sh, \
             or `useradd --system --no-create-home --shell /usr/sbin/nologin {SERVER_USER}`"
        ),
    }
}

/// The passwd entry of `name`, if any.
pub fn lookup(name: &str) -> Result<Option<ServerUser>> {
    let c_name = CString::new(name)?;
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    let mut buf = vec![0u8; 16 * 1024];
    // SAFETY: every pointer is valid for the call; getpwnam_r writes the
    // strings into buf, which outlives the call, and we copy nothing from it
    let rc = unsafe {
        libc::getpwnam_r(
            c_name.as_ptr(),
            &mut entry,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut result,
        )
    };
    if rc != 0 {
        bail!(
            "cannot look up user {name}: {}",
            std::io::Error::from_raw_os_error(rc)
        );
    }
    if result.is_null() {
        return Ok(None);
    }
    Ok(Some(ServerUser {
        name: name.to_string(),
        uid: entry.pw_uid,
        gid: entry.pw_gid,
    }))
}

/// Hands `path` to the server's user (the run directory and what the
/// server writes in it); nothing when the server runs as the tool's user.
pub fn hand_over(path: &Path, user: Option<&ServerUser>) -> Result<()> {
    if let Some(user) = user {
        std::os::unix::fs::chown(path, Some(user.uid), Some(user.gid)).map_err(|e| {
            anyhow::anyhow!(
                "cannot hand {} to the server's user {}: {e}",
                path.display(),
                user.name
            )
        })?;
    }
    Ok(())
}

/// Whether `user` may pass through every directory above `path` (by the
/// mode bits; supplementary groups are not counted): the server cannot
/// reach its run directory otherwise, and would fail with a message about
/// its datadir instead of this one.
pub fn check_reachable(path: &Path, user: &ServerUser) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    for dir in path.ancestors().skip(1) {
        let Ok(meta) = std::fs::metadata(dir) else {
            continue;
        };
        let mode = meta.mode();
        let passes = (meta.uid() == user.uid && mode & 0o100 != 0)
            || (meta.gid() == user.gid && mode & 0o010 != 0)
            || mode & 0o001 != 0;
        if !passes {
            bail!(
                "the server runs as {} (the tool runs as root) and cannot pass through {} \
                 (mode {:o}, owner uid {}) to reach {}: point INNODB_LAB_SHM at a directory \
                 it can reach, or `chmod o+x {}`",
                user.name,
                dir.display(),
                mode & 0o7777,
                meta.uid(),
                path.display(),
                dir.display()
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_directory_above_the_run_directory_is_named() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let closed = t.path().join("closed");
        let run = closed.join("shm/run-1");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
        std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o700)).unwrap();
        // a uid and gid that own nothing here
        let user = ServerUser {
            name: "nobody-here".into(),
            uid: 54321,
            gid: 54321,
        };
        let e = check_reachable(&run, &user).unwrap_err().to_string();
        assert!(
            e.contains(&closed.display().to_string()) && e.contains("mode 700"),
            "{e}"
        );
        std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o711)).unwrap();
        check_reachable(&run, &user).unwrap();
    }

    #[test]
    fn root_is_found_and_a_missing_user_is_none() {
        let root = lookup("root").unwrap().unwrap();
        assert_eq!((root.uid, root.gid), (0, 0));
        assert_eq!(lookup("no-such-user-innodb-lab-test").unwrap(), None);
    }

    #[test]
    fn a_root_tool_gets_the_system_user_or_an_error_naming_it() {
        match server_user() {
            Ok(None) => assert!(!tool_is_root()),
            Ok(Some(user)) => {
                assert!(tool_is_root());
                assert_eq!(user.name, SERVER_USER);
                assert_ne!(user.uid, 0);
            }
            Err(e) => {
                assert!(tool_is_root());
                let text = format!("{e:#}");
                assert!(
                    text.contains(SERVER_USER) && text.contains("install-deps.sh"),
                    "{text}"
                );
            }
        }
    }
}
