//! `tools/install-deps.sh --server-package` restores the host's
//! policy-rc.d on every exit path. The script runs for real; apt-get,
//! dpkg-query, getent and sudo are stand-ins on PATH (the test must not
//! install a server on the host), and the policy file is a temporary path
//! (INNODB_LAB_POLICY_RC_D), so the host's own is never touched. The server
//! binary the script tests for is a temporary path too
//! (INNODB_LAB_MARIADBD): the host's own /usr/sbin/mariadbd, which
//! `--server-package` itself installs, must not decide which path the
//! script takes.

// This test drives the built tool (or a script) from outside, as a shell
// would, so it uses std, not the tool's runner (which would install the
// tool's own signal handling into the test harness).
#![allow(clippy::disallowed_methods)]

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/install-deps.sh")
}

fn write_exe(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A PATH directory whose apt-get runs `apt_get` (a shell body) for an
/// install of mariadb-server, and whose other stand-ins say that every
/// package and the system user are there already (and do nothing for
/// rustup).
fn fake_path(dir: &Path, apt_get: &str) -> String {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    write_exe(
        &bin.join("apt-get"),
        &format!(
            "#!/bin/sh\necho \"apt-get $*\" >> {}\n{apt_get}\n",
            dir.join("apt.log").display()
        ),
    );
    write_exe(
        &bin.join("dpkg-query"),
        "#!/bin/sh\necho 'install ok installed'\n",
    );
    write_exe(&bin.join("getent"), "#!/bin/sh\nexit 0\n");
    write_exe(&bin.join("sudo"), "#!/bin/sh\nexec \"$@\"\n");
    // the script ends with `rustup component add`: not on the host's toolchain
    write_exe(&bin.join("rustup"), "#!/bin/sh\nexit 0\n");
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap())
}

/// The script with `--server-package`; `server` is the binary whose
/// presence means the packaged server is installed already.
fn command(dir: &Path, path: &str, policy: &Path, server: &Path) -> Command {
    let mut cmd = Command::new("bash");
    cmd.arg(script())
        .arg("--server-package")
        .env("PATH", path)
        .env("INNODB_LAB_POLICY_RC_D", policy)
        .env("INNODB_LAB_MARIADBD", server)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .current_dir(dir);
    cmd
}

/// A server binary path that does not exist, so that the script takes the
/// install path whatever the host has installed.
fn no_server(dir: &Path) -> PathBuf {
    dir.join("no-such-mariadbd")
}

#[test]
fn a_failed_install_restores_an_absent_policy_and_a_present_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = fake_path(dir.path(), "exit 100");
    let policy = dir.path().join("policy-rc.d");
    let server = no_server(dir.path());

    // no policy before: none after
    let status = command(dir.path(), &path, &policy, &server)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(100));
    let log = std::fs::read_to_string(dir.path().join("apt.log")).unwrap();
    assert!(
        log.contains("install -y -q --no-install-recommends mariadb-server"),
        "{log}"
    );
    assert!(!policy.exists(), "a policy-rc.d was left behind");

    // the host's own policy before: the same bytes and mode after
    let own = "#!/bin/sh\n# the host's own\nexit 0\n";
    std::fs::write(&policy, own).unwrap();
    std::fs::set_permissions(&policy, std::fs::Permissions::from_mode(0o750)).unwrap();
    let status = command(dir.path(), &path, &policy, &server)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(100));
    assert_eq!(std::fs::read_to_string(&policy).unwrap(), own);
    let mode = std::fs::metadata(&policy).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o750);
}

#[test]
fn sigterm_during_the_install_restores_the_policy_and_exits_143() {
    let dir = tempfile::tempdir().unwrap();
    let started = dir.path().join("apt-started");
    let path = fake_path(
        dir.path(),
        &format!("touch {}\nexec sleep 300", started.display()),
    );
    let policy = dir.path().join("policy-rc.d");
    let mut cmd = command(dir.path(), &path, &policy, &no_server(dir.path()));
    // its own process group, signalled as a whole, as a terminal or a CI
    // runner does
    cmd.process_group(0);
    let mut child = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !started.exists() {
        assert!(Instant::now() < deadline, "apt-get was never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    // while apt-get runs, the script's blocking policy is in place
    let blocking = std::fs::read_to_string(&policy).unwrap();
    assert!(blocking.contains("exit 101"), "{blocking}");
    // SAFETY: a signal to the process group of our own child
    unsafe { libc::kill(-(child.id() as i32), libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    assert!(!policy.exists(), "a policy-rc.d was left behind");
}

#[test]
fn an_installed_server_is_left_alone() {
    // the seam the other tests rely on: the script reads the server path
    // from INNODB_LAB_MARIADBD, and a server there means no install and no
    // policy file
    let dir = tempfile::tempdir().unwrap();
    let path = fake_path(dir.path(), "exit 100");
    let policy = dir.path().join("policy-rc.d");
    let server = dir.path().join("mariadbd");
    write_exe(&server, "#!/bin/sh\nexit 0\n");
    let status = command(dir.path(), &path, &policy, &server)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    // every stand-in package is "installed", so apt-get is never called
    assert!(
        !dir.path().join("apt.log").exists(),
        "{}",
        std::fs::read_to_string(dir.path().join("apt.log")).unwrap()
    );
    assert!(!policy.exists(), "a policy-rc.d was written");
}
