//! `cargo xtask bisect` on real builds of Debian's 10.11.18: a local
//! repository made from the tree, with a short planted history in which
//! one commit turns the mechanism on.
//!
//!   c0  clock.patch: freed_page_clock never advances (good: no page is
//!       made young)
//!   c1  a commit that changes no file (a message only)
//!   c2  reverts c0 (the first bad commit: pages are made young again)
//!   c3  another commit that changes no file
//!
//! Every commit has a fixed author and time, so the ids are the same on
//! every machine and every run. Builds are keyed by their source: c0 and
//! c1 have clock's source, c2 and c3 base's, so the bisection makes at
//! most two builds (none where the cache holds base and clock, as after
//! the other suites) and the midpoints reuse the endpoints'.

// the tool runs as a user runs it, as a binary with its exit status
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::Command;
use xtask::record::{BisectOutcome, BisectRecord, CandidateDecision};

const TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

/// Commits `tree` on `parent` with a fixed author and time, on branch
/// `planted` (so every clone of the repository has the commits).
fn commit(repo: &git2::Repository, parent: git2::Oid, tree: git2::Oid, message: &str) -> git2::Oid {
    let sig =
        git2::Signature::new("innodb-lab", "innodb-lab@localhost", &git2::Time::new(0, 0)).unwrap();
    let parent = repo.find_commit(parent).unwrap();
    let tree = repo.find_tree(tree).unwrap();
    repo.commit(
        Some("refs/heads/planted"),
        &sig,
        &sig,
        message,
        &tree,
        &[&parent],
    )
    .unwrap()
}

/// The planted history in a repository under `dir` (objects shared with
/// the cached tree, no work tree written): (its dir, [c0, c1, c2, c3]).
fn planted_history(dir: &Path) -> (PathBuf, [git2::Oid; 4]) {
    let tree = xtask::tree::resolve(&TREE.parse().unwrap()).unwrap();
    let dest = dir.join("planted");
    let mut no_files = git2::build::CheckoutBuilder::new();
    no_files.dry_run();
    let repo = git2::build::RepoBuilder::new()
        .clone_local(git2::build::CloneLocal::Local)
        .with_checkout(no_files)
        .clone(tree.src.to_str().unwrap(), &dest)
        .unwrap();
    let base = git2::Oid::from_str(&tree.id).unwrap();
    let clock =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../patches/10.11/clock.patch"))
            .unwrap();
    let diff = git2::Diff::from_buffer(&clock).unwrap();
    let base_tree = repo.find_commit(base).unwrap().tree().unwrap();
    let clock_tree = repo
        .apply_to_tree(&base_tree, &diff, None)
        .unwrap()
        .write_tree_to(&repo)
        .unwrap();
    let c0 = commit(
        &repo,
        base,
        clock_tree,
        "clock: freed_page_clock never advances",
    );
    let same_files = |on: git2::Oid| repo.find_commit(on).unwrap().tree_id();
    let c1 = commit(&repo, c0, same_files(c0), "a commit that changes no file");
    // the InnoDB file goes back to base's
    let reverted = {
        let mut index = git2::Index::new().unwrap();
        index
            .read_tree(&repo.find_commit(c1).unwrap().tree().unwrap())
            .unwrap();
        let path = Path::new("storage/innobase/buf/buf0lru.cc");
        let original = base_tree.get_path(path).unwrap();
        let mut entry = index.get_path(path, 0).unwrap();
        entry.id = original.id();
        entry.file_size = repo.find_blob(original.id()).unwrap().content().len() as u32;
        index.add(&entry).unwrap();
        index.write_tree_to(&repo).unwrap()
    };
    let c2 = commit(
        &repo,
        c1,
        reverted,
        "Revert \"clock: freed_page_clock never advances\"",
    );
    let c3 = commit(
        &repo,
        c2,
        same_files(c2),
        "another commit that changes no file",
    );
    (dest, [c0, c1, c2, c3])
}

/// A matrix of one tree (the planted repository), base, and one short
/// IN-list workload with its arming phase (about 3,000 pages: well above
/// the 512 an old sublist needs). One run a step: a counter has next to
/// no noise. No diagnostic pass: the decision is made on pages made
/// young, which the measured phase counts.
fn matrix_file(dir: &Path, repo: &Path) -> PathBuf {
    let file = dir.join("bisect.toml");
    std::fs::write(
        &file,
        format!(
            "name = \"bisect-planted\"\nrepetitions = 1\n\
             [[tree]]\nspec = \"path:{}\"\nvariants = [\"base\"]\n\
             [[workload]]\nname = \"points-covered-pk\"\ntables = 4\ntable_size = 50000\n\
             threads = 2\nrandom_points = 100\narm_seconds = 8\nwarmup_seconds = 1\n\
             measure_seconds = 2\ndiagnostic_seconds = 0\nidle_limit_seconds = 0\n",
            repo.display()
        ),
    )
    .unwrap();
    file
}

fn bisect(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("bisect")
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    eprintln!("{text}");
    (out.status.code(), text)
}

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn bisect_finds_the_planted_commit_and_refuses_endpoints_that_agree() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, [c0, c1, c2, c3]) = planted_history(dir.path());
    let m = matrix_file(dir.path(), &repo);
    let out = dir.path().join("found");
    // c0 good, c3 bad, into `out`; run twice (the second time resumed)
    let c0_to_c3 = || {
        bisect(&[
            m.to_str().unwrap(),
            "--good",
            &c0.to_string(),
            "--bad",
            &c3.to_string(),
            "--out",
            out.to_str().unwrap(),
            "--keep-builds",
        ])
    };
    let (code, said) = c0_to_c3();
    assert_eq!(code, Some(0), "{said}");
    let last = said.lines().rfind(|l| l.starts_with("first bad")).unwrap();
    assert_eq!(
        last,
        format!("first bad commit: {c2} Revert \"clock: freed_page_clock never advances\"")
    );
    let record: BisectRecord =
        serde_json::from_str(&std::fs::read_to_string(out.join("bisect.json")).unwrap()).unwrap();
    assert!(
        matches!(
            record.outcome,
            Some(BisectOutcome::Found {
                first_bad: 2,
                last_good: 1
            })
        ),
        "{:?}",
        record.outcome
    );
    // 3 places the first bad commit can be: at most 2 midpoints
    let midpoints: Vec<_> = record.steps.iter().filter(|s| !s.endpoint).collect();
    assert!(midpoints.len() <= 2, "{:?}", record.steps);
    // two sources among four commits: at most two builds made, and every
    // midpoint's build is an endpoint's (or an earlier suite's) source
    let made = said.matches("==> make ").count();
    assert!(made <= 2, "{made} builds made:\n{said}");
    assert!(
        said.contains("the same source as"),
        "no build reused across commits:\n{said}"
    );
    for s in &record.steps {
        let commit = record.candidates[s.candidate].commit.clone().unwrap();
        let bad = commit == c2.to_string() || commit == c3.to_string();
        assert_eq!(
            s.decision,
            if bad {
                CandidateDecision::Bad
            } else {
                CandidateDecision::Good
            },
            "{s:?}"
        );
        // the mechanism: base makes tens of pages young per query, clock none
        let m = s.median.unwrap();
        assert!(if bad { m > 5.0 } else { m < 0.01 }, "{s:?}");
    }
    assert!(record.steps.iter().any(|s| s.candidate == 1), "c1 measured");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains(&format!("**first bad commit**: `{c2}`")),
        "{md}"
    );
    assert!(out.join("report.jira").exists());

    // resumed: every step has its runs, nothing runs again, same answer
    let (code, said) = c0_to_c3();
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("resuming the bisection"), "{said}");
    assert!(!said.contains("measured ..."), "a step ran again:\n{said}");

    // an ordered list of trees, as releases are bisected: the first bad
    // one of c0, c1, c3 is c3 (every build is in the cache by now)
    let at = |c: git2::Oid| format!("path:{}#{c}", repo.display());
    let trees = [at(c0), at(c1), at(c3)].join(",");
    let out_trees = dir.path().join("trees");
    let (code, said) = bisect(&[
        m.to_str().unwrap(),
        "--trees",
        &trees,
        "--out",
        out_trees.to_str().unwrap(),
        "--keep-builds",
    ]);
    assert_eq!(code, Some(0), "{said}");
    let last = said.lines().rfind(|l| l.starts_with("first bad")).unwrap();
    assert_eq!(last, format!("first bad tree: {}", at(c3)));
    assert!(
        !said.contains("==> make "),
        "a build was made again:\n{said}"
    );

    // two good commits: nothing to bisect
    let (code, said) = bisect(&[
        m.to_str().unwrap(),
        "--good",
        &c0.to_string(),
        "--bad",
        &c1.to_string(),
        "--out",
        dir.path().join("same").to_str().unwrap(),
        "--keep-builds",
    ]);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("the endpoints do not differ"), "{said}");

    // usage errors are 3, never an answer
    let (code, said) = bisect(&[m.to_str().unwrap(), "--good", &c0.to_string()]);
    assert_eq!(code, Some(3), "{said}");
}
