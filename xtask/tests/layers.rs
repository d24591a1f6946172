//! The house drawn from the imports: every `crate::` (and `super::`) path
//! in xtask/src, resolved to the top-level module it names, checked against
//! a table of layers. Data flows one way: tasks -> runner -> {stages,
//! results, decisions, report}; stages never import the runner, the
//! results, the decisions or the reports; decisions read results and
//! records only, reports the decisions too. A new back-arrow, or a
//! module the table does not place, fails this test with the file and line.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Layers from the bottom up. A module may import modules of lower layers;
/// within a layer, `Within::Any` allows every arrow and `Within::Earlier`
/// only arrows to modules listed before it (the stages' pipeline order).
const LAYERS: &[(&str, Within, &[&str])] = &[
    (
        "foundation",
        Within::Any,
        &[
            "environment",
            "procfs",
            "children",
            "util",
            "lock",
            "stale",
            "host",
            "provenance",
            "stats",
            "charts",
            "flame",
            "snapshot",
        ],
    ),
    ("dims", Within::Any, &["dims"]),
    ("record", Within::Any, &["record"]),
    (
        "stages",
        Within::Earlier,
        &[
            "tree", "patch", "variant", "build", "settings", "server", "metrics", "profile",
            "workload",
        ],
    ),
    ("results", Within::Any, &["results"]),
    // what a report prints and what the runner repeats are decided here,
    // once, as numbers
    ("decisions", Within::Any, &["decide"]),
    ("report", Within::Any, &["report"]),
    ("runner", Within::Any, &["matrix"]),
    // the commands may use each other's pieces (a command's lock, say)
    (
        "tasks",
        Within::Any,
        &[
            "bisect",
            "model",
            "ffi",
            "oracle",
            "tree_check",
            "patch_check",
            "mtr",
            "validate",
            "soak",
            "testing",
            "tasks",
        ],
    ),
];

/// Layers that may not import some lower layers: results and reports are
/// functions of records, whatever stage made them.
const NEVER: &[(&str, &[&str])] = &[
    ("results", &["stages"]),
    ("decisions", &["stages"]),
    ("report", &["stages"]),
];

#[derive(Clone, Copy, PartialEq)]
enum Within {
    Any,
    Earlier,
}

struct Place {
    layer: usize,
    index: usize,
}

fn places() -> BTreeMap<&'static str, Place> {
    let mut map = BTreeMap::new();
    for (layer, (_, _, modules)) in LAYERS.iter().enumerate() {
        for (index, m) in modules.iter().enumerate() {
            assert!(
                map.insert(*m, Place { layer, index }).is_none(),
                "{m} is in two layers"
            );
        }
    }
    map
}

/// One import: the file and line it is on, and the module it names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Arrow {
    from: String,
    to: String,
    file: PathBuf,
    line: usize,
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, into);
        } else if p.extension().is_some_and(|x| x == "rs") {
            into.push(p);
        }
    }
}

/// `xtask/src/report/scan.rs` -> ["report", "scan"]; `mod.rs` is its folder.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    parts
}

/// The code of a line without its `//` comment and string literals (a path
/// in a message is not an import).
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut in_str = false;
    let mut prev = ' ';
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if in_str {
            if c == '"' && prev != '\\' {
                in_str = false;
            }
            prev = if prev == '\\' && c == '\\' { ' ' } else { c };
            continue;
        }
        if c == '"' {
            in_str = true;
            prev = c;
            continue;
        }
        if c == '/' && chars.peek() == Some(&'/') {
            break;
        }
        out.push(c);
        prev = c;
    }
    out
}

/// The top-level modules named by `crate::` and `super::` paths in `code`,
/// `use` groups included (`use crate::{a, b::c}`), for a file at `at`.
fn targets(code: &str, at: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if boundary && rest.starts_with("crate::") {
            let after = &rest["crate::".len()..];
            found.extend(first_segments(after));
            i += "crate::".len();
            continue;
        }
        if boundary && rest.starts_with("super::") {
            // each `super::` climbs one level from the file's own module
            let mut depth = at.len();
            let mut after = rest;
            while let Some(r) = after.strip_prefix("super::") {
                depth = depth.saturating_sub(1);
                after = r;
            }
            if depth == 0 {
                found.extend(first_segments(after));
            } else {
                found.push(at[0].clone());
            }
            i += rest.len() - after.len();
            continue;
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    found
}

/// `a::b` -> [a]; `{a, b::c, d}` -> [a, b, d].
fn first_segments(path: &str) -> Vec<String> {
    if let Some(group) = path.strip_prefix('{') {
        let end = group.find('}').unwrap_or(group.len());
        return group[..end]
            .split(',')
            .filter_map(|p| ident(p.trim()))
            .collect();
    }
    ident(path).into_iter().collect()
}

fn ident(s: &str) -> Option<String> {
    let id: String = s
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!id.is_empty() && id.chars().next().is_some_and(|c| c.is_ascii_lowercase())).then_some(id)
}

/// The code of each line of `file` (module path `at`): its index, the
/// module it is in, and the line without comments and strings. An inline
/// module (`mod tests {`, at a file's end) is one level deeper: its
/// `super::` is the file's own module.
fn code_lines(file: &Path, at: &[String]) -> Vec<(usize, Vec<String>, String)> {
    let text = fs::read_to_string(file).unwrap();
    let mut here = at.to_vec();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = code_of(line);
        let t = code.trim_start();
        if (t.starts_with("mod ") || t.starts_with("pub mod ")) && t.trim_end().ends_with('{') {
            here.push("(inline)".into());
        }
        out.push((n, here.clone(), code));
    }
    out
}

fn arrows(src: &Path) -> Vec<Arrow> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out = BTreeSet::new();
    for file in files {
        let at = module_path(src, &file);
        if at.len() == 1 && (at[0] == "lib" || at[0] == "main") {
            continue;
        }
        for (n, here, code) in code_lines(&file, &at) {
            for to in targets(&code, &here) {
                if to != at[0] {
                    out.insert(Arrow {
                        from: at[0].clone(),
                        to,
                        file: file.clone(),
                        line: n + 1,
                    });
                }
            }
        }
    }
    out.into_iter().collect()
}

/// Why `a` is not allowed, if it is not.
fn refusal(a: &Arrow, places: &BTreeMap<&str, Place>) -> Option<String> {
    let Some(from) = places.get(a.from.as_str()) else {
        return Some(format!("module `{}` has no layer in LAYERS", a.from));
    };
    // names that are not modules of the crate (e.g. `crate::SOME_CONST`)
    // cannot appear: lib.rs declares modules only
    let Some(to) = places.get(a.to.as_str()) else {
        return Some(format!("module `{}` has no layer in LAYERS", a.to));
    };
    let (from_layer, within, _) = LAYERS[from.layer];
    let to_layer = LAYERS[to.layer].0;
    if let Some((_, banned)) = NEVER.iter().find(|(l, _)| *l == from_layer) {
        if banned.contains(&to_layer) {
            return Some(format!("{from_layer} may not import {to_layer}"));
        }
    }
    if to.layer > from.layer {
        return Some(format!("{from_layer} imports the higher layer {to_layer}"));
    }
    if to.layer == from.layer && within == Within::Earlier && to.index > from.index {
        return Some(format!(
            "{from_layer}: `{}` comes before `{}` in LAYERS and may not import it",
            a.from, a.to
        ));
    }
    None
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn imports_follow_the_layers() {
    let places = places();
    let bad: Vec<String> = arrows(&src())
        .iter()
        .filter_map(|a| {
            refusal(a, &places).map(|why| {
                format!(
                    "{}:{}: {} -> {}: {why}",
                    a.file.display(),
                    a.line,
                    a.from,
                    a.to
                )
            })
        })
        .collect();
    assert!(
        bad.is_empty(),
        "arrows against the layers:\n{}",
        bad.join("\n")
    );
}

/// The lines of the Rust files under `src`, outside the file `owner`,
/// whose line (as `part` cuts it) matches `hit`: "file:line: text".
fn lines_outside(
    src: &Path,
    owner: &str,
    part: impl Fn(&str) -> String,
    hit: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with(owner)) {
        let text = fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if hit(&part(line)) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    found
}

/// The lines of `src`, outside `environment.rs`, that read a variable of
/// the process environment: `env::var`, `env::var_os` or `env::vars` in
/// code (not in a comment or a string).
fn environment_reads(src: &Path) -> Vec<String> {
    lines_outside(src, "environment.rs", code_of, |code| {
        ["env::var(", "env::var_os(", "env::vars("]
            .iter()
            .any(|call| code.contains(call))
    })
}

/// One resolved environment: only `environment.rs` reads the process's
/// variables (once, or each time for the tests' failure seam), so a
/// command's stages all see what its `main` saw.
#[test]
fn only_the_environment_module_reads_the_environment() {
    // the check sees a read where there is one: in code, not in a comment
    // or a string, and not in the owner
    assert_only_the_owner(
        environment_reads,
        "environment.rs",
        &[
            (
                "cache.rs",
                "// std::env::var(\"HOME\") in a comment\nlet msg = \"env::var(\";\nlet h = std::env::var_os(\"HOME\");\n",
            ),
            ("environment.rs", "std::env::var(\"X\")\n"),
        ],
        "cache.rs:3:",
    );
}

/// The lines of `src`, outside `procfs.rs`, whose code (a comment aside)
/// names a path under /proc.
fn proc_reads(src: &Path) -> Vec<String> {
    let before_comment = |line: &str| line.split("//").next().unwrap_or("").to_string();
    lines_outside(src, "procfs.rs", before_comment, |code| {
        code.contains("\"/proc")
    })
}

/// One owner of /proc: `procfs.rs` parses a process's stat line once, and
/// nothing else opens a file there.
#[test]
fn only_procfs_reads_proc() {
    assert_only_the_owner(
        proc_reads,
        "procfs.rs",
        &[(
            "lock.rs",
            "// reads \"/proc/locks\"\nlet t = fs::read_to_string(\"/proc/locks\");\n",
        )],
        "lock.rs:2:",
    );
}

/// No file of xtask/src but `owner` has a line `find` finds; and on a tree
/// of `sample` files, `find` finds exactly the one line `expected` names
/// ("file:line:"), so the check can fail.
fn assert_only_the_owner(
    find: fn(&Path) -> Vec<String>,
    owner: &str,
    sample: &[(&str, &str)],
    expected: &str,
) {
    let found = find(&src());
    assert!(found.is_empty(), "outside {owner}:\n{}", found.join("\n"));
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in sample {
        fs::write(dir.path().join(name), text).unwrap();
    }
    let found = find(dir.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains(expected), "{found:?}");
}

#[test]
fn every_module_of_lib_rs_has_a_layer() {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let places = places();
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';'))
        .collect();
    assert!(declared.len() > 10, "{declared:?}");
    for m in &declared {
        assert!(
            places.contains_key(m),
            "lib.rs declares `{m}`, which has no layer"
        );
    }
    for m in places.keys() {
        assert!(
            declared.contains(m),
            "LAYERS places `{m}`, which lib.rs does not declare"
        );
    }
}

#[test]
fn the_reader_finds_every_form_of_import_and_the_check_refuses_back_arrows() {
    let at = vec!["report".to_string(), "scan".to_string()];
    let code = code_of(
        "use crate::{record::X, dims}; let y = super::super::workload::f(); // crate::matrix",
    );
    assert_eq!(targets(&code, &at), ["record", "dims", "workload"]);
    assert_eq!(
        targets(&code_of("let s = \"crate::matrix\";"), &at),
        Vec::<String>::new()
    );
    assert_eq!(targets("use super::doc;", &at), ["report"]);
    let in_tests = vec!["ffi".to_string(), "(inline)".to_string()];
    assert_eq!(targets("use super::summary_line;", &in_tests), ["ffi"]);
    let places = places();
    let arrow = |from: &str, to: &str| Arrow {
        from: from.into(),
        to: to.into(),
        file: "x.rs".into(),
        line: 1,
    };
    assert!(refusal(&arrow("report", "workload"), &places).is_some());
    assert!(refusal(&arrow("results", "tree"), &places).is_some());
    assert!(refusal(&arrow("tree", "matrix"), &places).is_some());
    assert!(
        refusal(&arrow("tree", "build"), &places).is_some(),
        "a stage imports a later one"
    );
    assert!(refusal(&arrow("build", "tree"), &places).is_none());
    assert!(refusal(&arrow("matrix", "report"), &places).is_none());
    assert!(refusal(&arrow("record", "dims"), &places).is_none());
    assert!(refusal(&arrow("dims", "record"), &places).is_some());
    assert!(refusal(&arrow("newthing", "util"), &places).is_some());
}

/// A circle found by a depth-first walk of the module graph, if any.
fn circle(arrows: &[Arrow]) -> Option<Vec<String>> {
    let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for a in arrows {
        next.entry(a.from.as_str())
            .or_default()
            .insert(a.to.as_str());
    }
    fn walk<'a>(
        m: &'a str,
        next: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| *p == m) {
            let mut c: Vec<String> = path[i..].iter().map(|s| s.to_string()).collect();
            c.push(m.to_string());
            return Some(c);
        }
        if !done.insert(m) {
            return None;
        }
        path.push(m);
        for n in next.get(m).into_iter().flatten() {
            if let Some(c) = walk(n, next, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for m in next.keys() {
        if let Some(c) = walk(m, &next, &mut Vec::new(), &mut done) {
            return Some(c);
        }
    }
    None
}

/// No circle of imports anywhere, tests included (the layers allow arrows
/// within the foundation and between tasks; this keeps those one way too).
#[test]
fn the_import_graph_has_no_circle() {
    let found = circle(&arrows(&src()));
    assert!(
        found.is_none(),
        "import circle: {}",
        found.unwrap().join(" -> ")
    );
    let arrow = |from: &str, to: &str| Arrow {
        from: from.into(),
        to: to.into(),
        file: "x.rs".into(),
        line: 1,
    };
    let planted = [
        arrow("util", "children"),
        arrow("children", "lock"),
        arrow("lock", "util"),
    ];
    assert_eq!(
        circle(&planted).unwrap(),
        ["children", "lock", "util", "children"]
    );
}

/// The names a line of code at `at` (a file below the top-level module
/// `module`) takes from that module itself: `super::x` from a file of the
/// module's own level, `super::super::x` one level deeper, and
/// `crate::<module>::x`. Each is a sub-module (a sibling of the file) or
/// an item of the module's own file (its parent's).
fn names_from_module(code: &str, at: &[String], module: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut i = 0;
    let bytes = code.as_bytes();
    let crate_path = format!("crate::{module}::");
    while i < code.len() {
        let rest = &code[i..];
        let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let mut after = None;
        if boundary && rest.starts_with(&crate_path) {
            after = Some(&rest[crate_path.len()..]);
        } else if boundary && rest.starts_with("super::") {
            let mut depth = at.len();
            let mut r = rest;
            while let Some(x) = r.strip_prefix("super::") {
                depth = depth.saturating_sub(1);
                r = x;
            }
            if depth == 1 {
                after = Some(r);
            }
            i += rest.len() - r.len();
        }
        if let Some(a) = after {
            found.extend(first_segments(a));
            i += 1;
            continue;
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    found
}

/// The sibling modules a line of code at `at` names (`names_from_module`,
/// only those that are sub-modules: `subs`).
fn sibling_targets(
    code: &str,
    at: &[String],
    module: &str,
    subs: &BTreeSet<String>,
) -> Vec<String> {
    names_from_module(code, at, module)
        .into_iter()
        .filter(|s| subs.contains(s))
        .collect()
}

/// The functions of its parent's own file that a line of code at `at`
/// calls: the names it takes from the module that are neither sub-modules
/// nor types or constants (which start with a capital).
fn parent_functions(
    code: &str,
    at: &[String],
    module: &str,
    subs: &BTreeSet<String>,
) -> Vec<String> {
    names_from_module(code, at, module)
        .into_iter()
        .filter(|s| !subs.contains(s) && s != "self" && s != "*")
        .filter(|s| s.starts_with(|c: char| c.is_ascii_lowercase() || c == '_'))
        .collect()
}

/// The sub-modules that the top-level module's own file (`module.rs` or
/// `module/mod.rs`) uses in its code: `mod` lines and `pub use` re-exports
/// are declarations, not uses; its inline test module is left out.
fn parent_uses(src: &Path, module: &str, subs: &BTreeSet<String>) -> BTreeSet<String> {
    let file = [
        src.join(format!("{module}.rs")),
        src.join(module).join("mod.rs"),
    ]
    .into_iter()
    .find(|f| f.is_file());
    let Some(file) = file else {
        return BTreeSet::new();
    };
    let mut used = BTreeSet::new();
    for line in fs::read_to_string(file).unwrap().lines() {
        let code = code_of(line);
        let t = code.trim_start();
        if (t.starts_with("mod ") || t.starts_with("pub mod ")) && t.trim_end().ends_with('{') {
            break;
        }
        if t.starts_with("mod ") || t.starts_with("pub mod ") || t.starts_with("pub use ") {
            continue;
        }
        for sub in subs {
            let needle = format!("{sub}::");
            let found = code.match_indices(&needle).any(|(i, _)| {
                i == 0 || {
                    let b = code.as_bytes()[i - 1];
                    !(b.is_ascii_alphanumeric() || b == b'_')
                }
            });
            if found {
                used.insert(sub.clone());
            }
        }
    }
    used
}

/// The arrows between the sub-modules of the top-level module `module`,
/// and the calls up into functions of the module's own file from the
/// sub-modules that file uses (a circle between parent and child: an
/// arrow to `(parent)`).
fn sibling_arrows(src: &Path, module: &str) -> (Vec<Arrow>, Vec<Arrow>) {
    let dir = src.join(module);
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let subs: BTreeSet<String> = files
        .iter()
        .map(|f| module_path(src, f))
        .filter(|p| p.len() >= 2)
        .map(|p| p[1].clone())
        .collect();
    let used_by_parent = parent_uses(src, module, &subs);
    let mut out = BTreeSet::new();
    let mut up = BTreeSet::new();
    for file in files {
        let at = module_path(src, &file);
        if at.len() < 2 {
            continue;
        }
        for (n, here, code) in code_lines(&file, &at) {
            for to in sibling_targets(&code, &here, module, &subs) {
                if to != at[1] {
                    out.insert(Arrow {
                        from: at[1].clone(),
                        to,
                        file: file.clone(),
                        line: n + 1,
                    });
                }
            }
            let in_inline_module = here.len() > at.len();
            for f in parent_functions(&code, &here, module, &subs) {
                if in_inline_module || !used_by_parent.contains(&at[1]) {
                    continue;
                }
                up.insert(Arrow {
                    from: at[1].clone(),
                    to: format!("(parent)::{f}"),
                    file: file.clone(),
                    line: n + 1,
                });
            }
        }
    }
    (out.into_iter().collect(), up.into_iter().collect())
}

/// No circle between the sub-modules of any top-level module either: a
/// module's stage files read its plain types and never the file that
/// runs them, which imports them.
#[test]
fn no_module_has_a_circle_among_its_sub_modules() {
    let src = src();
    let mut modules: Vec<String> = fs::read_dir(&src)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    modules.sort();
    assert!(modules.iter().any(|m| m == "matrix"), "{modules:?}");
    let mut circles = Vec::new();
    let mut calls_up = Vec::new();
    for m in &modules {
        let (arrows, up) = sibling_arrows(&src, m);
        calls_up.extend(up.iter().map(|a| {
            format!(
                "{m}/{} calls {} ({}:{})",
                a.from,
                a.to,
                a.file.display(),
                a.line
            )
        }));
        if let Some(c) = circle(&arrows) {
            let first = arrows
                .iter()
                .find(|a| a.from == c[0] && a.to == c[1])
                .map(|a| format!("{}:{}", a.file.display(), a.line))
                .unwrap_or_default();
            circles.push(format!("{m}: {} (first arrow at {first})", c.join(" -> ")));
        }
    }
    assert!(
        circles.is_empty(),
        "circles among sub-modules:\n{}",
        circles.join("\n")
    );
    // a sub-module reads its parent's types and constants, never calls its
    // functions: the parent calls down, and what both need is a sibling
    assert!(
        calls_up.is_empty(),
        "sub-modules that call up into their parent's file:\n{}",
        calls_up.join("\n")
    );
    // the reader sees each form of a sibling import, and only siblings
    let subs: BTreeSet<String> = ["run", "cell"].iter().map(|s| s.to_string()).collect();
    let at = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        sibling_targets(
            "use super::run::{Prepared, Shared};",
            &at(&["matrix", "cell"]),
            "matrix",
            &subs
        ),
        ["run"]
    );
    assert_eq!(
        sibling_targets(
            "use crate::matrix::{cell::x, Matrix};",
            &at(&["matrix", "run"]),
            "matrix",
            &subs
        ),
        ["cell"]
    );
    assert_eq!(
        sibling_targets(
            "use super::super::cell::x;",
            &at(&["matrix", "run", "deep"]),
            "matrix",
            &subs
        ),
        ["cell"]
    );
    assert!(sibling_targets(
        "use super::Matrix;",
        &at(&["matrix", "cell"]),
        "matrix",
        &subs
    )
    .is_empty());
}
