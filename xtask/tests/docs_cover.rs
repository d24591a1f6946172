//! The documentation covers the tool: every subcommand and every flag that
//! `cargo xtask … --help` lists, and every `INNODB_LAB_*` variable the
//! code reads or sets, is named in README.md, CONTRIBUTING.md, docs/ or the
//! model's and mtr suite's READMEs (`lru-model/`, `mtr/`).
//! A new option without a word about it fails here.

mod common;

use std::path::{Path, PathBuf};
use xtask::util::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn docs() -> String {
    // the model's and our mtr suite's own documents too
    common::documentation(&[
        "README.md",
        "CONTRIBUTING.md",
        "lru-model/README.md",
        "mtr/README.md",
    ])
}

fn help(path: &[String]) -> String {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(path.iter().cloned())
        .arg("--help")
        .read()
        .unwrap_or_else(|e| panic!("{path:?} --help: {e:#}"))
}

/// The lines of a help section (`Commands:`, `Options:`) up to the next
/// section's title (long help puts blank lines between its entries).
fn section<'a>(text: &'a str, title: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| *l != title)
        .skip(1)
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// Every command path of the tool, with its flags.
fn commands(path: Vec<String>, out: &mut Vec<(Vec<String>, Vec<String>)>) {
    let text = help(&path);
    let flags: Vec<String> = section(&text, "Options:")
        .iter()
        .filter_map(|l| {
            let at = l.find("--")?;
            let flag: String = l[at..]
                .chars()
                .take_while(|c| *c == '-' || c.is_ascii_alphanumeric())
                .collect();
            // an option's description can mention another flag: only a
            // line that starts with the option counts
            (l[..at].trim().trim_end_matches(',').starts_with('-') || l[..at].trim().is_empty())
                .then_some(flag)
        })
        .filter(|f| f != "--help" && f != "--version")
        .collect();
    let subs: Vec<String> = section(&text, "Commands:")
        .iter()
        .filter(|l| l.starts_with("  ") && !l.starts_with("      "))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .filter(|s| s != "help")
        .collect();
    if !path.is_empty() {
        out.push((path.clone(), flags));
    }
    for s in subs {
        let mut p = path.clone();
        p.push(s);
        commands(p, out);
    }
}

#[test]
fn every_command_flag_and_variable_is_documented() {
    let docs = docs();
    let mut all = Vec::new();
    commands(Vec::new(), &mut all);
    assert!(all.len() >= 12, "{all:?}");
    let mut missing = Vec::new();
    for (path, flags) in &all {
        // `cargo xtask mtr report`, or the command named on a line of its
        // parent's (`cargo xtask model replay|simulate|bench`)
        let (last, parents) = path.split_last().unwrap();
        let whole = format!("cargo xtask {}", path.join(" "));
        let parent = format!("cargo xtask {}", parents.join(" "));
        let named = docs.contains(&whole)
            || docs.lines().any(|l| {
                l.contains(parent.trim_end())
                    && l.split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
                        .any(|w| w == last)
            });
        if !named {
            missing.push(format!("command `{whole}`"));
        }
        for f in flags {
            if !docs.contains(f.as_str()) {
                missing.push(format!("`{whole} {f}`"));
            }
        }
    }
    let mut variables = std::collections::BTreeSet::new();
    let mut stack = vec![root().join("xtask/src")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                for (at, _) in text.match_indices("\"INNODB_LAB_") {
                    let name: String = text[at + 1..]
                        .chars()
                        .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                        .collect();
                    variables.insert(name);
                }
            }
        }
    }
    assert!(variables.contains("INNODB_LAB_CACHE"), "{variables:?}");
    for v in &variables {
        if !docs.contains(v.as_str()) {
            missing.push(format!("variable `{v}`"));
        }
    }
    assert!(
        missing.is_empty(),
        "not documented in README.md, CONTRIBUTING.md, docs/, lru-model/README.md or mtr/README.md:\n{}",
        missing.join("\n")
    );
}
