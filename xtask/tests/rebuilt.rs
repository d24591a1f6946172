//! The build-noise control on real builds of Debian's 10.11.18: the
//! `base-rebuilt` variant is base's tree with its code moved. Its binary
//! defines exactly the functions base's does plus the one never-called
//! function the layout shift adds; every function linked before the shift
//! stays where it was, and every one after it (the rest of buf0buf.cc, the
//! LRU, the flush code) moves.

// nm is run as a shell would run it; the tool's runner is not needed here
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

/// Every function a binary defines (demangled), with its address.
fn functions(mariadbd: &Path) -> BTreeMap<String, u64> {
    let out = Command::new("nm")
        .args(["-C", "--defined-only"])
        .arg(mariadbd)
        .output()
        .expect("nm runs (binutils)");
    assert!(out.status.success(), "nm {}", mariadbd.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (addr, rest) = l.split_once(' ')?;
            let (kind, name) = rest.split_once(' ')?;
            let addr = u64::from_str_radix(addr, 16).ok()?;
            // the C runtime's weak `data_start` marks the page-aligned data
            // section, not code
            let code = matches!(kind, "t" | "T" | "W") && name != "data_start";
            code.then(|| (name.to_string(), addr))
        })
        .collect()
}

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn the_rebuilt_control_moves_bases_code_and_adds_nothing_it_runs() {
    let tree = xtask::tree::resolve(&TREE.parse().unwrap()).unwrap();
    let build = |name: &str| {
        let v = xtask::variant::resolve(&Default::default(), &tree, name).unwrap();
        xtask::build::build(&tree, &v.label, &v.change, Default::default()).unwrap()
    };
    let base = build("base");
    let rebuilt = build("base-rebuilt");
    assert_ne!(base.key_hash, rebuilt.key_hash, "two builds");
    let (b, r) = (functions(&base.mariadbd), functions(&rebuilt.mariadbd));
    let added: Vec<&String> = r.keys().filter(|n| !b.contains_key(*n)).collect();
    let lost: Vec<&String> = b.keys().filter(|n| !r.contains_key(*n)).collect();
    assert_eq!(
        added,
        ["innodb_lab_layout_shift()"],
        "functions only the rebuild defines"
    );
    assert!(lost.is_empty(), "functions the rebuild lost: {lost:?}");
    // a function by the start of its demangled name
    let moved = |prefix: &str| {
        let f = b
            .keys()
            .find(|n| n.starts_with(prefix))
            .unwrap_or_else(|| panic!("base defines no {prefix}..."));
        let (x, y) = (b[f], r[f]);
        eprintln!("{f}: base {x:#x}, base-rebuilt {y:#x}");
        x != y
    };
    // in buf0buf.cc after the shift, and in a file linked after it
    for f in ["buf_page_get_gen(", "buf_LRU_get_free_block("] {
        assert!(moved(f), "{f} did not move");
    }
    // what lies before the shift stays; everything after it moves
    let shift = r["innodb_lab_layout_shift()"];
    let (before, after): (Vec<&String>, Vec<&String>) = b.keys().partition(|f| r[*f] < shift);
    let stayed = |fs: &[&String]| fs.iter().filter(|f| b[**f] == r[**f]).count();
    eprintln!(
        "{} functions before the shift, {} stayed; {} after it, {} stayed",
        before.len(),
        stayed(&before),
        after.len(),
        stayed(&after)
    );
    assert_eq!(
        stayed(&before),
        before.len(),
        "a function before the shift moved"
    );
    assert_eq!(stayed(&after), 0, "a function after the shift did not move");
    assert!(
        after.len() > 1000,
        "only {} functions after the shift",
        after.len()
    );
}
