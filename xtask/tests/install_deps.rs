//! `tools/install-deps.sh --server-package` restores the host's
//! policy-rc.d on every exit path. The script runs for real; apt-get,
//! dpkg-query, getent and sudo are stand-ins on PATH (the test must not
//! install a server on the host), and the policy file is a temporary path
//! (INNODB_LAB_POLICY_RC_D), so the host's own is never touched.

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
/// package and the system user are there already.
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
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap())
}

fn command(dir: &Path, path: &str, policy: &Path) -> Command {
    let mut cmd = Command::new("bash");
    cmd.arg(script())
        .arg("--server-package")
        .env("PATH", path)
        .env("INNODB_LAB_POLICY_RC_D", policy)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .current_dir(dir);
    cmd
}

fn server_installed() -> bool {
    // the script installs the packaged server only when it is missing
    Path::new("/usr/sbin/mariadbd").exists()
}

#[test]
fn a_failed_install_restores_an_absent_policy_and_a_present_one() {
    assert!(
        !server_installed(),
        "/usr/sbin/mariadbd exists: the script would not take the path under test"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = fake_path(dir.path(), "exit 100");
    let policy = dir.path().join("policy-rc.d");

    // no policy before: none after
    let status = command(dir.path(), &path, &policy).status().unwrap();
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
    let status = command(dir.path(), &path, &policy).status().unwrap();
    assert_eq!(status.code(), Some(100));
    assert_eq!(std::fs::read_to_string(&policy).unwrap(), own);
    let mode = std::fs::metadata(&policy).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o750);
}

#[test]
fn sigterm_during_the_install_restores_the_policy_and_exits_143() {
    assert!(!server_installed());
    let dir = tempfile::tempdir().unwrap();
    let started = dir.path().join("apt-started");
    let path = fake_path(
        dir.path(),
        &format!("touch {}\nexec sleep 300", started.display()),
    );
    let policy = dir.path().join("policy-rc.d");
    let mut cmd = command(dir.path(), &path, &policy);
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
