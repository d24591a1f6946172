//! The `debian:` source for a version no apt list names: MariaDB 11.8.6,
//! fetched for real by its pool path from Debian's archive into a cache of
//! its own, its files checked against the .dsc and the .dsc's signature
//! against Debian's keyring, then unpacked and imported.

use std::time::Instant;

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn mariadb_11_8_6_through_the_pool_path() {
    let cache = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let spec = "debian:mariadb=1:11.8.6-0+deb13u1";
    let tree = xtask::tree::resolve_in(spec, cache.path()).unwrap();
    eprintln!("fetched {spec} in {:.0} s", start.elapsed().as_secs_f64());
    assert_eq!(tree.version, "11.8.6");
    assert_eq!(tree.series.to_string(), "11.8");

    // the provenance record beside the tree says what vouched and for what
    let record = xtask::tree::provenance_path(&tree.src);
    assert_eq!(
        record.file_name().unwrap(),
        "debian-mariadb-1-11.8.6-0-deb13u1.provenance.json"
    );
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert!(
        p["from"]
            .as_str()
            .unwrap()
            .ends_with("/pool/main/m/mariadb/mariadb_11.8.6-0+deb13u1.dsc"),
        "{p}"
    );
    let names: Vec<&str> = p["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"mariadb_11.8.6.orig.tar.gz"), "{names:?}");
    assert!(
        p["vouched_by"]
            .as_str()
            .unwrap()
            .contains("99B452B11F3C74C3B453E46FBED8449FCEE8DA88"),
        "{p}"
    );
    eprintln!("{}", serde_json::to_string_pretty(&p).unwrap());
}
