//! bindgen's layout == the g++ shim's layout == the model's declared field map.

use std::collections::BTreeMap;

use lru_model::layout::Quantity;

fn tree() -> ffi::TreeInfo {
    ffi::tree().unwrap_or_else(|e| panic!("{e}"))
}

fn by_quantity(facts: Vec<ffi::Measured>) -> BTreeMap<Quantity, u64> {
    let mut map = BTreeMap::new();
    for f in facts {
        assert!(
            map.insert(f.what, f.value).is_none(),
            "{} measured twice",
            f.what
        );
    }
    map
}

fn show(v: Option<u64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

#[test]
#[cfg_attr(
    innodb = "none",
    ignore = "built without a tree (INNODB_SRC, INNODB_BUILD): cargo xtask ffi check --tree SPEC runs it"
)]
fn layout_bindgen_shim_and_model_agree() {
    let tree = tree();
    let layout = tree.layout;
    let model = layout.field_map();
    let bindgen = by_quantity(ffi::bindgen_layout().unwrap());
    let shim = by_quantity(ffi::shim_layout().unwrap());
    let declared: BTreeMap<Quantity, u64> = model.facts.iter().map(|f| (f.what, f.value)).collect();

    // the model's order first, then anything only the probes measured
    let mut all: Vec<Quantity> = model.facts.iter().map(|f| f.what).collect();
    for q in bindgen.keys().chain(shim.keys()) {
        if !all.contains(q) {
            all.push(*q);
        }
    }

    println!(
        "layout of {} ({} layout, model map {}), {} quantities:",
        tree.version,
        layout,
        if model.compiled {
            "compiled before"
        } else {
            "hand-computed"
        },
        all.len()
    );
    println!(
        "  {:<44} {:>8} {:>8} {:>8}",
        "quantity", "bindgen", "g++", "model"
    );
    let mut mismatches = Vec::new();
    for q in &all {
        let (b, s, m) = (
            bindgen.get(q).copied(),
            shim.get(q).copied(),
            declared.get(q).copied(),
        );
        let ok = b.is_some() && b == s && s == m;
        println!(
            "  {:<44} {:>8} {:>8} {:>8}{}",
            q.to_string(),
            show(b),
            show(s),
            show(m),
            if ok { "" } else { "  <-- MISMATCH" }
        );
        if !ok {
            mismatches.push(format!(
                "{} ({layout}): {q}: bindgen={}, g++ shim={}, model (lru_model::layout)={}",
                tree.version,
                show(b),
                show(s),
                show(m)
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "layout mismatches:\n  {}",
        mismatches.join("\n  ")
    );
    println!(
        "{}: {} layout quantities agree across bindgen, g++ and the model",
        tree.version,
        all.len()
    );
}

#[test]
#[cfg_attr(
    innodb = "none",
    ignore = "built without a tree (INNODB_SRC, INNODB_BUILD): cargo xtask ffi check --tree SPEC runs it"
)]
fn flags_come_from_the_server_build() {
    let tree = tree();
    println!(
        "{}: shim and bindgen flags from compile_commands.json: {}",
        tree.version,
        tree.flags.join(" ")
    );
    // the server's own: MariaDB's configuration header and adaptive hash
    // index; MySQL's server define and a release build (without NDEBUG its
    // univ.i turns UNIV_DEBUG on, and the layout with it)
    let needed: &[&str] = match tree.generation {
        ffi::Generation::MySql => &["-DMYSQL_SERVER", "-DNDEBUG"],
        _ => &["-DHAVE_CONFIG_H", "-DBTR_CUR_HASH_ADAPT"],
    };
    for &needed in needed {
        assert!(
            tree.flags.contains(&needed),
            "{}: {needed} missing from the server's flags",
            tree.version
        );
    }
    assert!(
        !tree.flags.contains(&"-DUNIV_INNOCHECKSUM"),
        "{}: took innochecksum's compile command instead of the server's",
        tree.version
    );
}
