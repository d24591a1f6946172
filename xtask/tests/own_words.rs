//! Our patches and mtr tests are written in our own words: no window of
//! four consecutive non-trivial added lines may match a fingerprint of
//! upstream's post-fix text (`patches/upstream-fingerprints.txt`, made by
//! `tools/upstream-fingerprints.py`, which applies the same rules and
//! already leaves out windows that stood in the pre-fix tree).
//!
//! Rules shared with the script: a line is stripped and its runs of
//! whitespace collapsed to one space; it is trivial (skipped, not a
//! boundary) when shorter than 20 characters or without any letter or
//! digit; a window is four non-trivial lines joined by `\n`, fingerprinted
//! as sha256 hex. In a patch, only runs of consecutive added lines of one
//! hunk form windows; in an mtr file, the whole file does.

use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

const WINDOW: usize = 4;
const MIN_LEN: usize = 20;

fn normalise(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_trivial(norm: &str) -> bool {
    norm.chars().count() < MIN_LEN || !norm.chars().any(char::is_alphanumeric)
}

fn fingerprint(lines: &[String]) -> String {
    hex::encode(Sha256::digest(lines.join("\n").as_bytes()))
}

/// One line of our text, with its 1-based line number in its file.
#[derive(Clone, Debug)]
struct Numbered {
    line_no: usize,
    text: String,
}

/// The runs of consecutive added lines of each hunk of a git diff.
fn added_runs(patch: &str) -> Vec<Vec<Numbered>> {
    let mut runs = Vec::new();
    let mut run = Vec::new();
    let mut in_hunk = false;
    for (i, line) in patch.lines().enumerate() {
        let added = in_hunk && line.starts_with('+');
        if added {
            run.push(Numbered {
                line_no: i + 1,
                text: line[1..].to_string(),
            });
            continue;
        }
        if !run.is_empty() {
            runs.push(std::mem::take(&mut run));
        }
        if line.starts_with("@@") {
            in_hunk = true;
        } else if line.starts_with("diff ") {
            in_hunk = false;
        }
    }
    if !run.is_empty() {
        runs.push(run);
    }
    runs
}

fn whole_file(text: &str) -> Vec<Numbered> {
    text.lines()
        .enumerate()
        .map(|(i, l)| Numbered {
            line_no: i + 1,
            text: l.to_string(),
        })
        .collect()
}

/// A stretch of our text whose windows all match upstream: the union of
/// overlapping matching windows.
#[derive(Debug, PartialEq)]
struct Copied {
    first_line: usize,
    last_line: usize,
    /// non-trivial lines in the stretch
    lines: usize,
    /// the first matching window, normalised
    window: String,
}

fn copied_stretches(run: &[Numbered], upstream: &HashSet<String>) -> Vec<Copied> {
    let significant: Vec<Numbered> = run
        .iter()
        .map(|n| Numbered {
            line_no: n.line_no,
            text: normalise(&n.text),
        })
        .filter(|n| !is_trivial(&n.text))
        .collect();
    let mut out: Vec<Copied> = Vec::new();
    // index one past the last significant line already in `out.last()`
    let mut covered_to = 0;
    for start in 0..significant.len().saturating_sub(WINDOW - 1) {
        let window: Vec<String> = significant[start..start + WINDOW]
            .iter()
            .map(|n| n.text.clone())
            .collect();
        if !upstream.contains(&fingerprint(&window)) {
            continue;
        }
        let end = start + WINDOW;
        match out.last_mut() {
            Some(last) if start < covered_to => {
                last.last_line = significant[end - 1].line_no;
                last.lines += end - covered_to;
            }
            _ => out.push(Copied {
                first_line: significant[start].line_no,
                last_line: significant[end - 1].line_no,
                lines: WINDOW,
                window: window.join("\n"),
            }),
        }
        covered_to = end;
    }
    out
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn read_fingerprints(path: &Path) -> HashSet<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            assert!(
                l.len() == 64 && l.bytes().all(|b| b.is_ascii_hexdigit()),
                "{}: not a sha256 hex digest: {l}",
                path.display()
            );
            l.to_string()
        })
        .collect()
}

fn files_under(dir: &Path, out: &mut BTreeSet<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.insert(path);
        }
    }
}

#[test]
fn no_fixed_patch_or_mtr_file_matches_upstream_text() {
    let root = repo_root();
    let upstream = read_fingerprints(&root.join("patches/upstream-fingerprints.txt"));
    // A truncated or emptied fingerprint file would make this test pass
    // without comparing anything.
    assert!(
        upstream.len() >= 100,
        "only {} fingerprints",
        upstream.len()
    );

    let mut checked: Vec<(PathBuf, Vec<Vec<Numbered>>)> = Vec::new();
    let mut series: Vec<PathBuf> = std::fs::read_dir(root.join("patches"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    series.sort();
    for dir in series {
        // the port and the remedies built on it (fixed-fine-clock, fixed-fine-young)
        let mut patches: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("fixed") && n.ends_with(".patch"))
            })
            .collect();
        patches.sort();
        for patch in patches {
            let runs = added_runs(&std::fs::read_to_string(&patch).unwrap());
            assert!(
                !runs.is_empty(),
                "{}: no added lines found",
                patch.display()
            );
            checked.push((patch, runs));
        }
    }
    assert!(
        checked
            .iter()
            .any(|(p, _)| p.ends_with("10.11/fixed.patch")),
        "patches/10.11/fixed.patch was not found"
    );
    assert!(
        checked
            .iter()
            .any(|(p, _)| p.ends_with("11.8/fixed-fine-young.patch")),
        "patches/11.8/fixed-fine-young.patch was not found"
    );
    let mut mtr_files = BTreeSet::new();
    files_under(&root.join("mtr/suite"), &mut mtr_files);
    assert!(!mtr_files.is_empty(), "no files under mtr/suite");
    for file in mtr_files {
        let text = std::fs::read_to_string(&file).unwrap();
        checked.push((file, vec![whole_file(&text)]));
    }

    let mut report = Vec::new();
    let (mut total_stretches, mut total_lines) = (0, 0);
    for (file, runs) in &checked {
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        let stretches: Vec<Copied> = runs
            .iter()
            .flat_map(|r| copied_stretches(r, &upstream))
            .collect();
        let lines: usize = stretches.iter().map(|s| s.lines).sum();
        eprintln!(
            "{name}: {} runs matching upstream, {lines} lines",
            stretches.len()
        );
        total_stretches += stretches.len();
        total_lines += lines;
        for s in stretches {
            report.push(format!(
                "{name} lines {}-{} ({} non-trivial lines) match upstream's post-fix text; \
                 first window:\n    {}",
                s.first_line,
                s.last_line,
                s.lines,
                s.window.replace('\n', "\n    ")
            ));
        }
    }
    eprintln!("total: {total_stretches} runs, {total_lines} lines");
    assert!(
        report.is_empty(),
        "{total_stretches} runs ({total_lines} lines) of our text match upstream:\n{}",
        report.join("\n")
    );
}

/// Made-up text (not upstream's): its first window's fingerprint below was
/// computed by tools/upstream-fingerprints.py, so that this test also
/// proves that the script and this matcher normalise alike.
const PLANTED: [&str; 4] = [
    "let the_planted_window = first_line_of_a_made_up_text();",
    "second made-up line, long enough to count",
    "third made-up line; braces and blanks around it are skipped",
    "fourth made-up line closes the planted window",
];
const PLANTED_BY_SCRIPT: &str = "e8c981621bade539264ad7561c2234e38d393ea784fbaeca1f5f43347880af12";

#[test]
fn the_matcher_catches_a_planted_window() {
    let planted: Vec<String> = PLANTED.iter().map(|s| s.to_string()).collect();
    assert_eq!(fingerprint(&planted), PLANTED_BY_SCRIPT);
    let upstream: HashSet<String> = [PLANTED_BY_SCRIPT.to_string()].into();

    // Re-indented, with blank, brace-only and short lines in between:
    // all of these are skipped, so the window still matches.
    let patch = format!(
        "diff --git a/x.cc b/x.cc\n--- a/x.cc\n+++ b/x.cc\n@@ -1,2 +1,9 @@\n context line\n\
         +    {}\n+{{\n+\t{}\n+\n+  {}   \n+}};\n+x= 1;\n+{}\n+an unrelated line of our own\n",
        PLANTED[0],
        PLANTED[1],
        PLANTED[2].replace(' ', "  "),
        PLANTED[3]
    );
    let runs = added_runs(&patch);
    assert_eq!(runs.len(), 1);
    let found: Vec<Copied> = runs
        .iter()
        .flat_map(|r| copied_stretches(r, &upstream))
        .collect();
    assert_eq!(
        found,
        vec![Copied {
            first_line: 6,
            last_line: 13,
            lines: 4,
            window: PLANTED.join("\n"),
        }]
    );

    // The same lines split by a context line are two runs: no window.
    let split = format!(
        "diff --git a/x.cc b/x.cc\n@@ -1,3 +1,6 @@\n+{}\n+{}\n context line in between\n+{}\n+{}\n",
        PLANTED[0], PLANTED[1], PLANTED[2], PLANTED[3]
    );
    let runs = added_runs(&split);
    assert_eq!(runs.len(), 2);
    assert!(runs
        .iter()
        .all(|r| copied_stretches(r, &upstream).is_empty()));

    // Removed lines and file headers never count as ours.
    let removed = format!(
        "diff --git a/x.cc b/x.cc\n@@ -1,4 +1,0 @@\n-{}\n-{}\n-{}\n-{}\n",
        PLANTED[0], PLANTED[1], PLANTED[2], PLANTED[3]
    );
    assert!(added_runs(&removed).is_empty());

    // One changed word and the window no longer matches.
    let mut changed = whole_file(&PLANTED.join("\n"));
    changed[3].text = changed[3].text.replace("closes", "ends");
    assert!(copied_stretches(&changed, &upstream).is_empty());

    // Two overlapping matches make one stretch of five lines.
    let mut five = PLANTED.to_vec();
    five.push("a fifth line that continues the made-up text");
    let second: Vec<String> = five[1..].iter().map(|s| s.to_string()).collect();
    let both: HashSet<String> = [PLANTED_BY_SCRIPT.to_string(), fingerprint(&second)].into();
    let found = copied_stretches(&whole_file(&five.join("\n")), &both);
    assert_eq!(found.len(), 1);
    assert_eq!(
        (found[0].first_line, found[0].last_line, found[0].lines),
        (1, 5, 5)
    );
}
