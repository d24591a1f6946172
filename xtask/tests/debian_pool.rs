//! The `debian:` source for a version no apt list names: MariaDB 11.8.6,
//! fetched for real by its pool path from Debian's archive into a cache of
//! its own, its files checked against the .dsc and the .dsc's signature
//! against Debian's keyring, then unpacked and imported; and MySQL 9.7.2,
//! fetched the same way into the tool's cache, read as a MySQL tree and
//! configured with MySQL's options.

use std::path::Path;
use std::time::Instant;

/// The provenance record at `record` says the `.dsc` came from a path
/// ending in `dsc`, that it named `orig`, and that key `key` signed it;
/// returns the record.
fn provenance_says(record: &Path, dsc: &str, orig: &str, key: &str) -> serde_json::Value {
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(record).unwrap()).unwrap();
    assert!(p["from"].as_str().unwrap().ends_with(dsc), "{p}");
    let names: Vec<&str> = p["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&orig), "{names:?}");
    assert!(p["vouched_by"].as_str().unwrap().contains(key), "{p}");
    p
}

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn mariadb_11_8_6_through_the_pool_path() {
    let cache = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let spec = "debian:mariadb=1:11.8.6-0+deb13u1";
    let tree = xtask::tree::resolve_in(&spec.parse().unwrap(), cache.path()).unwrap();
    eprintln!("fetched {spec} in {:.0} s", start.elapsed().as_secs_f64());
    assert_eq!(tree.version, "11.8.6");
    assert_eq!(tree.series.to_string(), "11.8");

    // the provenance record beside the tree says what vouched and for what
    let record = xtask::tree::provenance_path(&tree.src);
    assert_eq!(
        record.file_name().unwrap(),
        "debian-mariadb-1-11.8.6-0-deb13u1.provenance.json"
    );
    let p = provenance_says(
        &record,
        "/pool/main/m/mariadb/mariadb_11.8.6-0+deb13u1.dsc",
        "mariadb_11.8.6.orig.tar.gz",
        "99B452B11F3C74C3B453E46FBED8449FCEE8DA88",
    );
    eprintln!("{}", serde_json::to_string_pretty(&p).unwrap());
}

/// MySQL 9.7.2 (Debian's `mysql-9.7`, served at its pool path only): into
/// the tool's own cache (a 429 MB tarball: once per machine), read as a
/// MySQL tree, refused by name where a stage is written for MariaDB, and
/// configured with MySQL's build options (cmake's checks and the error
/// header; the server itself is not compiled here).
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn mysql_9_7_2_is_a_mysql_tree_that_configures() {
    use xtask::dims::Engine;
    let start = Instant::now();
    let spec = "debian:mysql-9.7=9.7.2-4";
    let tree = xtask::tree::resolve(&spec.parse().unwrap()).unwrap();
    eprintln!("resolved {spec} in {:.0} s", start.elapsed().as_secs_f64());
    assert_eq!(tree.version, "9.7.2");
    assert_eq!(tree.series.engine, Engine::MySql);
    assert_eq!(tree.series.to_string(), "mysql-9.7");
    assert!(!tree.has_upstream_fix);

    provenance_says(
        &xtask::tree::provenance_path(&tree.src),
        "/pool/main/m/mysql-9.7/mysql-9.7_9.7.2-4.dsc",
        "mysql-9.7_9.7.2.orig.tar.gz",
        "63EEFC3DE14D5146CE7F24BF34B8AD7D9529E793",
    );

    // the variants that exist for MariaDB only say why they do not here
    let refused = |name: &str| {
        let e = xtask::variant::resolve(&Default::default(), &tree, name).unwrap_err();
        format!("{e:#}")
    };
    let fixed = refused("fixed");
    assert!(
        fixed.contains("no MySQL port") && fixed.contains(spec),
        "{fixed}"
    );
    let gate = refused("gate");
    assert!(gate.contains("no patch for series mysql-9.7"), "{gate}");
    let mtr = tree
        .mariadb_only("cargo xtask mtr")
        .unwrap_err()
        .to_string();
    assert!(mtr.contains("MySQL 9.7.2") && mtr.contains(spec), "{mtr}");

    // base builds with MySQL's options; configured, the checks pass and
    // GenError writes the error header the server's sources include
    let base = xtask::variant::resolve(&Default::default(), &tree, "base").unwrap();
    let key = xtask::build::key_for(&tree, &base.change, Default::default()).unwrap();
    assert!(
        key.cmake_options.contains(&"-DWITH_MYSQLX=OFF".to_string()),
        "{:?}",
        key.cmake_options
    );
    let start = Instant::now();
    let configured = xtask::build::configure_only(&tree).unwrap();
    eprintln!(
        "configured {spec} in {:.0} s (0 when it was already)",
        start.elapsed().as_secs_f64()
    );
    assert!(configured.build.join("include/mysqld_error.h").is_file());
    let cache = std::fs::read_to_string(configured.build.join("CMakeCache.txt")).unwrap();
    for entry in ["WITH_MYSQLX:BOOL=OFF", "WITH_ROUTER:BOOL=OFF"] {
        assert!(cache.contains(entry), "{entry} not in the CMakeCache");
    }
}
