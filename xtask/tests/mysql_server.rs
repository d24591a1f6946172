//! A MySQL server started by the tool is as safe as a MariaDB one: its
//! datadir on the run root (tmpfs), a unix socket only (no TCP or UDP
//! listener of its own, none on MySQL's ports anywhere, `skip_networking`
//! on, the X plugin not running), no account that logs in without a
//! password from anywhere but the socket, the server's process not root,
//! and nothing of it left after it stops. It needs MySQL 9.7.2's base
//! build, which takes hours on 2 cores the first time: ignored, run by
//! hand (docs/testing.md says when).

mod common;

use std::fs;

const TREE: &str = "debian:mysql-9.7=9.7.2-4";

/// MySQL's classic and X protocol ports.
const MYSQL_PORTS: [u16; 2] = [3306, 33060];

/// The ports in the LISTEN state (`0A`) of this network namespace's TCP
/// tables, whoever holds them.
fn listening_tcp_ports() -> Vec<u16> {
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|t| fs::read_to_string(t).ok())
        .flat_map(|text| {
            text.lines()
                .skip(1)
                .filter_map(|l| {
                    let fields: Vec<&str> = l.split_whitespace().collect();
                    let port = fields.get(1)?.rsplit(':').next()?;
                    (fields.get(3) == Some(&"0A")).then(|| u16::from_str_radix(port, 16).ok())?
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn uid_of(pid: u32) -> u32 {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|u| u.parse().ok())
        .unwrap_or_else(|| panic!("no Uid line in /proc/{pid}/status"))
}

#[test]
#[ignore = "needs MySQL 9.7.2's base build (hours on 2 cores the first time); run by hand: cargo test --release -p xtask --test mysql_server -- --ignored"]
fn a_mysql_server_listens_on_its_unix_socket_only() {
    let before = listening_tcp_ports();
    let server = common::base_build::base_server(TREE, "mysql-socket-test");
    let (pid, root) = (server.pid, server.dir.root.clone());

    assert!(
        xtask::procfs::net_listeners(pid).unwrap().is_empty(),
        "mysqld holds a network listener"
    );
    let after = listening_tcp_ports();
    for port in MYSQL_PORTS {
        assert!(
            !after.contains(&port) || before.contains(&port),
            "port {port} listens since mysqld started: {after:?}"
        );
    }
    assert_ne!(uid_of(pid), 0, "mysqld runs as root");

    use mysql::prelude::Queryable;
    let mut conn = server.connect().unwrap();
    let networking: Option<(String, String)> = conn
        .query_first("SHOW GLOBAL VARIABLES LIKE 'skip_networking'")
        .unwrap();
    assert_eq!(networking.map(|(_, v)| v).as_deref(), Some("ON"));
    let x_plugin: Vec<String> = conn
        .query("SELECT PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'mysqlx'")
        .unwrap();
    assert!(
        x_plugin.iter().all(|s| s != "ACTIVE"),
        "the X plugin runs: {x_plugin:?}"
    );
    let open: Vec<(String, String)> = conn
        .query(
            "SELECT user, host FROM mysql.user \
             WHERE authentication_string = '' AND host <> 'localhost' \
             AND account_locked = 'N'",
        )
        .unwrap();
    assert!(open.is_empty(), "accounts without a password: {open:?}");
    let datadir: Option<(String, String)> = conn
        .query_first("SHOW GLOBAL VARIABLES LIKE 'datadir'")
        .unwrap();
    let datadir = datadir.unwrap().1;
    assert!(
        datadir.starts_with(&root.display().to_string()),
        "datadir {datadir} is outside the run directory {}",
        root.display()
    );
    drop(conn);

    assert!(server.stop().unwrap(), "mysqld did not stop cleanly");
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "mysqld {pid} still runs"
    );
    assert!(!root.exists(), "{} is left behind", root.display());
}
