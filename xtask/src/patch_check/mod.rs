//! `cargo xtask patch check`: every patch of `patches/patches.toml` on
//! every tree, applied to a fresh checkout and compiled with the tree's
//! real compile commands.
//!
//! Every patch is tried on every tree, not only on the series it is made
//! for, so the report also says whether the 10.11 patch would serve 10.5
//! and the other way round. Only a patch of the tree's own series that
//! fails makes the command fail; a foreign patch that does not apply is
//! information.
//!
//! Compiling: the configured tree (`build::configure_only`) has the
//! compile_commands.json of the project's cmake options. The entries of the
//! `innobase` target are rewritten from the configured source to the
//! patched checkout and run with `-fsyntax-only` in the configured build
//! directory, which has the generated headers (my_config.h,
//! mysqld_error.h). A changed .cc file is compiled itself; a changed header
//! through the .cc files of its InnoDB module that include it directly or
//! through one header (buf0buf.inl: the buf/*.cc that include buf0buf.h).

mod compile;
mod memo;
mod scratch;

use crate::build;
use crate::dims::Series;
use crate::patch::{self, Entry, Table};
use crate::record::Patch;
use crate::record::Tree;
use crate::tree;
use crate::util::{cache_root, write_json, Stage};
use anyhow::{bail, Result};
use compile::compile_all;
pub use compile::{
    changed_units, first_error, module_dir, quoted_includes, rewrite_prefix, split_command,
    syntax_command, CompileDb, Unit,
};
use scratch::Scratch;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Instant;

/// Subcommands of `cargo xtask patch`.
#[derive(clap::Subcommand, Debug)]
pub enum PatchAction {
    /// Apply every patch of patches/patches.toml to every tree and compile
    /// the InnoDB files it changes; print a table and write it as JSON.
    Check {
        /// A tree, e.g. `debian:mariadb=1:10.11.18-0+deb12u1` (repeatable;
        /// default: Debian's 10.11.18, 10.5.23 and 11.8.6).
        #[arg(long = "tree")]
        trees: Vec<tree::TreeSpec>,
        /// Where to write the JSON result (default:
        /// <cache>/patch-check/report.json).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Check every cell again, even one whose patch, tree, compiler
        /// and cmake options are those of a kept outcome.
        #[arg(long)]
        fresh: bool,
    },
}

pub fn run(cmd: PatchAction) -> Result<()> {
    match cmd {
        PatchAction::Check { trees, out, fresh } => {
            let specs = if trees.is_empty() {
                tree::debian_trees()
            } else {
                trees
            };
            let report = check(&specs, fresh)?;
            println!("{}", table(&report));
            let out = out.unwrap_or_else(|| cache_root().join("patch-check").join("report.json"));
            write_json(&out, &report)?;
            eprintln!("result written to {}", out.display());
            let failures = report.failures();
            if !failures.is_empty() {
                bail!(
                    "{} patch(es) of a tree's own series failed: {}",
                    failures.len(),
                    failures.join("; ")
                );
            }
            Ok(())
        }
    }
}

/// What became of one patch on one tree.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum PatchOutcome {
    /// Not tried: the tree carries the upstream fix the patch conflicts with.
    Refused { reason: String },
    /// A hunk (named in the error) does not apply.
    DoesNotApply { error: String },
    /// Applied, but nothing could be compiled (no compile command, no unit
    /// including a changed header, or the tree could not be configured).
    NotCompiled { error: String },
    /// Applied, and some units did not compile.
    CompileFailed {
        units: Vec<PathBuf>,
        failed: Vec<PathBuf>,
        /// The first error of the first failing unit, with its context.
        first_error: String,
        /// The files the patch changed, as patched, under their paths in
        /// the tree: kept for a look (the checkout itself serves the next
        /// patch).
        patched_files: PathBuf,
    },
    /// Applied, and every unit compiled.
    Compiled { units: Vec<PathBuf> },
}

impl PatchOutcome {
    /// The patch is fine on the tree: compiled, or refused on purpose.
    pub fn ok(&self) -> bool {
        matches!(
            self,
            PatchOutcome::Compiled { .. } | PatchOutcome::Refused { .. }
        )
    }

    /// One cell of the table: `compiled 5 units`, `does not apply`, ...
    pub fn summary(&self) -> String {
        match self {
            PatchOutcome::Refused { reason } => format!("refused: {reason}"),
            PatchOutcome::DoesNotApply { .. } => "does not apply".into(),
            PatchOutcome::NotCompiled { .. } => "applies, not compiled".into(),
            PatchOutcome::CompileFailed { units, failed, .. } => {
                format!(
                    "applies, {} of {} units fail to compile",
                    failed.len(),
                    units.len()
                )
            }
            PatchOutcome::Compiled { units } => format!(
                "applies, compiles ({} unit{})",
                units.len(),
                if units.len() == 1 { "" } else { "s" }
            ),
        }
    }

    /// The error behind a failure, for the lines under the table.
    pub fn detail(&self) -> Option<&str> {
        match self {
            PatchOutcome::DoesNotApply { error } | PatchOutcome::NotCompiled { error } => {
                Some(error)
            }
            PatchOutcome::CompileFailed { first_error, .. } => Some(first_error),
            _ => None,
        }
    }
}

/// One (tree, patch) cell.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Check {
    pub variant: String,
    /// The series the patch is made for.
    pub series: Vec<Series>,
    pub file: PathBuf,
    pub patch_sha256: String,
    /// The patch is made for the tree's own series: failing fails the check.
    pub own_series: bool,
    pub outcome: PatchOutcome,
    pub seconds: f64,
}

/// One tree and its cells; `error` when the tree itself could not be
/// resolved (then it has no cells and counts as a failure).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TreeChecks {
    pub spec: String,
    pub version: Option<String>,
    pub series: Option<Series>,
    pub id: Option<String>,
    pub has_upstream_fix: Option<bool>,
    pub error: Option<String>,
    pub checks: Vec<Check>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub trees: Vec<TreeChecks>,
}

impl Report {
    /// What makes the command fail: a tree that cannot be resolved, and a
    /// patch of a tree's own series that is not refused and does not
    /// compile.
    pub fn failures(&self) -> Vec<String> {
        let mut out = Vec::new();
        for t in &self.trees {
            let name = t.version.clone().unwrap_or_else(|| t.spec.clone());
            if let Some(e) = &t.error {
                out.push(format!("{}: {}", t.spec, first_line(e)));
            }
            for c in t.checks.iter().filter(|c| c.own_series && !c.outcome.ok()) {
                out.push(format!(
                    "{} on {name}: {}",
                    c.file.display(),
                    c.outcome.summary()
                ));
            }
        }
        out
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default()
}

/// Checks every patch of the table on every tree of `specs`.
pub fn check(specs: &[tree::TreeSpec], fresh: bool) -> Result<Report> {
    let table = Table::load()?;
    let mut trees = Vec::new();
    for spec in specs {
        let t = match tree::resolve(spec) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("    cannot resolve tree `{spec}`: {e:#}");
                trees.push(TreeChecks {
                    spec: spec.to_string(),
                    version: None,
                    series: None,
                    id: None,
                    has_upstream_fix: None,
                    error: Some(format!("{e:#}")),
                    checks: Vec::new(),
                });
                continue;
            }
        };
        trees.push(check_tree(&t, &table, fresh)?);
    }
    Ok(Report { trees })
}

/// The compile database of a tree, made once and only when a patch applies.
enum Configured {
    NotYet,
    Ready(CompileDb),
    Failed(String),
}

fn check_tree(t: &Tree, table: &Table, fresh: bool) -> Result<TreeChecks> {
    eprintln!(
        "patch check: {} ({}, series {}, commit {}{})",
        t.version,
        t.spec,
        t.series,
        &t.id[..12.min(t.id.len())],
        if t.has_upstream_fix {
            ", carries MDEV-33966"
        } else {
            ""
        }
    );
    let mut configured = Configured::NotYet;
    let mut scratch = Scratch::new(t);
    let mut checks = Vec::new();
    let compiler = build::compiler_version()?;
    let cmake_options = build::cmake_options(t.series.engine, Default::default());
    for entry in &table.entries {
        let start = Instant::now();
        let p = entry.load()?;
        let kept = memo::path(&p.sha256, &t.id, &compiler, &cmake_options);
        let (outcome, how) = match memo::recall(&kept).filter(|_| !fresh) {
            Some(outcome) => (outcome, " (kept from an earlier check)"),
            None => {
                let outcome = check_one(t, entry, &p, &mut configured, &mut scratch);
                // the next cell starts from the tree's commit, whatever
                // became of this one
                scratch.restore(&patch::touched_files(&p)?)?;
                let outcome = outcome?;
                memo::keep(&kept, &outcome)?;
                (outcome, "")
            }
        };
        let seconds = start.elapsed().as_secs_f64();
        eprintln!(
            "    {} ({}) on {}: {}{how}",
            entry.variant,
            crate::patch::series_list(&entry.series),
            t.version,
            outcome.summary()
        );
        if let Some(d) = outcome.detail() {
            for l in d.lines() {
                eprintln!("        {l}");
            }
        }
        checks.push(Check {
            variant: entry.variant.clone(),
            series: entry.series.clone(),
            file: entry.file.clone(),
            patch_sha256: p.sha256.clone(),
            own_series: entry.series.contains(&t.series),
            outcome,
            seconds,
        });
    }
    Ok(TreeChecks {
        spec: t.spec.clone(),
        version: Some(t.version.clone()),
        series: Some(t.series),
        id: Some(t.id.clone()),
        has_upstream_fix: Some(t.has_upstream_fix),
        error: None,
        checks,
    })
}

/// Where a cell whose compile failed keeps its patched files:
/// `<cache>/patch-check/<tree id 12>/<variant>-<series>`.
fn kept_files_dir(t: &Tree, entry: &Entry) -> PathBuf {
    scratch::tree_dir(t).join(format!(
        "{}-{}",
        entry.variant,
        crate::patch::series_list(&entry.series)
    ))
}

/// Errors here are the machinery's (a checkout that cannot be written);
/// what the patch and the compiler say ends up in the outcome. The caller
/// restores the scratch checkout afterwards.
fn check_one(
    t: &Tree,
    entry: &Entry,
    p: &Patch,
    configured: &mut Configured,
    scratch: &mut Scratch,
) -> Result<PatchOutcome> {
    if matches!(t.kind(), crate::record::TreeKind::Packaged { .. }) {
        return Ok(PatchOutcome::Refused {
            reason: "a packaged server has no source to patch".into(),
        });
    }
    if let Some(reason) = entry.refusal(t) {
        return Ok(PatchOutcome::Refused { reason });
    }
    let stage = Stage::start(format!(
        "{} {} and apply {}",
        if scratch.is_open() {
            "take the checkout of"
        } else {
            "check out"
        },
        t.version,
        p.file.display()
    ));
    let (repo, dir) = scratch.open(t)?;
    let applied = patch::apply(repo, p);
    stage.done();
    if let Err(e) = applied {
        return Ok(PatchOutcome::DoesNotApply {
            error: format!("{e:#}"),
        });
    }
    if let Configured::NotYet = configured {
        *configured = match build::configure_only(t)
            .and_then(|c| CompileDb::load(&c.build.join("compile_commands.json"), &c.src))
        {
            Ok(db) => Configured::Ready(db),
            Err(e) => Configured::Failed(format!("cannot configure {}: {e:#}", t.version)),
        };
    }
    let db = match configured {
        Configured::Ready(db) => &*db,
        Configured::Failed(e) => return Ok(PatchOutcome::NotCompiled { error: e.clone() }),
        Configured::NotYet => unreachable!("configured just above"),
    };
    let units = match changed_units(&patch::changed_files(p)?, dir, db) {
        Ok(u) if u.is_empty() => {
            return Ok(PatchOutcome::NotCompiled {
                error: format!("{} changes no file", p.file.display()),
            })
        }
        Ok(u) => u,
        Err(e) => {
            return Ok(PatchOutcome::NotCompiled {
                error: format!("{}: {e:#}", p.file.display()),
            })
        }
    };
    let stage = Stage::start(format!(
        "compile {} unit(s) of {} with {}",
        units.len(),
        t.version,
        p.file.display()
    ));
    let results = compile_all(db, &units, dir)?;
    stage.done();
    let failed: Vec<(PathBuf, String)> = results
        .into_iter()
        .filter_map(|(unit, r)| r.err().map(|e| (unit, e)))
        .collect();
    if let Some((unit, error)) = failed.first() {
        let keep = kept_files_dir(t, entry);
        scratch.keep_files(&patch::touched_files(p)?, &keep)?;
        return Ok(PatchOutcome::CompileFailed {
            first_error: format!("{}:\n{error}", unit.display()),
            failed: failed.iter().map(|(u, _)| u.clone()).collect(),
            units,
            patched_files: keep,
        });
    }
    Ok(PatchOutcome::Compiled { units })
}

/// The table printed at the end: one row per (tree, patch), then the
/// errors behind the rows that are not fine, as plain text.
pub fn table(report: &Report) -> String {
    use crate::report::doc::{self, Block};
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for t in &report.trees {
        let name = t.version.clone().unwrap_or_else(|| t.spec.clone());
        if let Some(e) = &t.error {
            rows.push(vec![
                name.clone(),
                "-".into(),
                "-".into(),
                "tree not resolved".into(),
            ]);
            notes.push(format!("{name}: {e}"));
        }
        for c in &t.checks {
            rows.push(vec![
                name.clone(),
                c.file.display().to_string(),
                format!(
                    "{}{}",
                    crate::patch::series_list(&c.series),
                    if c.own_series { " (own)" } else { "" }
                ),
                c.outcome.summary(),
            ]);
            if let Some(d) = c.outcome.detail() {
                // apply's errors already start with the patch file
                let file = c.file.display().to_string();
                let d = d.strip_prefix(&format!("{file}: ")).unwrap_or(d);
                notes.push(format!("{name} {file}: {d}"));
            }
        }
    }
    let mut blocks = vec![Block::Table {
        header: ["tree", "patch", "made for", "result"]
            .map(String::from)
            .to_vec(),
        rows,
    }];
    if !notes.is_empty() {
        blocks.push(Block::Bullets(notes));
    }
    doc::text(&blocks)
}

#[cfg(test)]
mod tests {
    /// A series from its text, for the tests.
    fn sr(s: &str) -> crate::dims::Series {
        s.parse().unwrap()
    }
    use super::*;
    use std::fs;

    #[test]
    fn own_series_failures_fail_and_foreign_ones_do_not() {
        let cell = |own: bool, outcome: PatchOutcome| Check {
            variant: "gate".into(),
            series: vec![Series::V10_5],
            file: "patches/10.5/gate.patch".into(),
            patch_sha256: String::new(),
            own_series: own,
            outcome,
            seconds: 0.0,
        };
        let nope = || PatchOutcome::DoesNotApply {
            error: "hunk".into(),
        };
        let mut report = Report {
            trees: vec![TreeChecks {
                spec: "debian:x".into(),
                version: Some("10.5.23".into()),
                series: Some(Series::V10_5),
                id: Some("0".repeat(40)),
                has_upstream_fix: Some(false),
                error: None,
                checks: vec![
                    cell(false, nope()),
                    cell(
                        true,
                        PatchOutcome::Refused {
                            reason: "tree carries MDEV-33966".into(),
                        },
                    ),
                    cell(true, PatchOutcome::Compiled { units: vec![] }),
                ],
            }],
        };
        assert!(report.failures().is_empty());
        let printed = table(&report);
        assert!(
            printed.contains("refused: tree carries MDEV-33966"),
            "{printed}"
        );
        assert!(printed.contains("10.5 (own)"), "{printed}");
        // the result column starts at one place on every line of the table,
        // the header ruled off; the error behind a row is a note under it
        let lines: Vec<&str> = printed.lines().collect();
        let result_at = lines[0].find("result").unwrap();
        assert!(lines[1].chars().all(|c| c == '-'), "{printed}");
        for row in ["does not apply", "refused:", "applies, compiles"] {
            let line = lines.iter().find(|l| l.contains(row)).unwrap();
            assert_eq!(line.find(row), Some(result_at), "{printed}");
        }
        assert!(
            printed.ends_with("\n\n- 10.5.23 patches/10.5/gate.patch: hunk\n"),
            "{printed}"
        );
        report.trees[0].checks.push(cell(true, nope()));
        let f = report.failures();
        assert_eq!(f.len(), 1);
        assert!(
            f[0].contains("does not apply") && f[0].contains("10.5.23"),
            "{f:?}"
        );
    }

    #[test]
    fn a_fixed_tree_refuses_every_patch_before_checking_out() {
        // a tiny tree whose buf0buf.h has the MDEV-33966 names
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("server");
        fs::create_dir_all(src.join("storage/innobase/include")).unwrap();
        fs::write(
            src.join("VERSION"),
            "MYSQL_VERSION_MAJOR=10\nMYSQL_VERSION_MINOR=11\nMYSQL_VERSION_PATCH=99\n",
        )
        .unwrap();
        fs::write(
            src.join("storage/innobase/include/buf0buf.h"),
            "uint32_t access_clock;\n",
        )
        .unwrap();
        let repo = git2::Repository::init(&src).unwrap();
        let mut index = repo.index().unwrap();
        index
            .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .unwrap();
        let tree_id = index.write_tree().unwrap();
        let sig = git2::Signature::now("t", "t@localhost").unwrap();
        repo.commit(
            Some("HEAD"),
            &sig,
            &sig,
            "fixed",
            &repo.find_tree(tree_id).unwrap(),
            &[],
        )
        .unwrap();

        let t = tree::resolve(&format!("path:{}", src.display()).parse().unwrap()).unwrap();
        assert!(t.has_upstream_fix);
        // the build-noise control's layout shift serves a tree with the fix
        // too (its base is `fixed`), and so does the leak remedy (the fix
        // keeps the code it changes): every other patch is refused
        let mut table = Table::load().unwrap();
        table
            .entries
            .retain(|e| !crate::dims::SERVES_FIXED_TREES.contains(&e.variant.as_str()));
        assert!(table.entries.iter().all(|e| e.refuse_on.is_some()));
        let checks = check_tree(&t, &table, true).unwrap();
        assert_eq!(checks.checks.len(), table.entries.len());
        for c in &checks.checks {
            assert_eq!(
                c.outcome,
                PatchOutcome::Refused {
                    reason: "tree carries MDEV-33966".into()
                },
                "{}",
                c.file.display()
            );
        }
        assert!(Report {
            trees: vec![checks]
        }
        .failures()
        .is_empty());
        assert!(!scratch::tree_dir(&t).exists());
    }

    /// The real thing on the Debian 10.11.18 tree: the own gate patch
    /// compiles the buf/ units that include buf0buf.h, the 10.5 clock patch
    /// does not apply (its context is 10.5's), and a patch that breaks
    /// buf0lru.cc applies and fails with the compiler's error, which shows
    /// the units really are compiled from the patched checkout.
    #[test]
    #[ignore = "real parts (the Debian 10.11.18 tree and its configured build: network and \
                ~4 min on first use, ~1 min after): cargo xtask test runs it"]
    fn the_real_10_11_18_tree() {
        let t = tree::resolve(&tree::debian_trees()[0]).unwrap();
        let table = Table::load().unwrap();
        let mut configured = Configured::NotYet;
        let mut scratch = Scratch::new(&t);
        let mut run = |e: &Entry| {
            let p = e.load().unwrap();
            let outcome = check_one(&t, e, &p, &mut configured, &mut scratch).unwrap();
            scratch.restore(&patch::touched_files(&p).unwrap()).unwrap();
            outcome
        };

        let gate = table.find(sr("10.11"), "gate").unwrap();
        match run(gate) {
            PatchOutcome::Compiled { units } => {
                for u in ["buf0buf.cc", "buf0lru.cc", "buf0flu.cc"] {
                    assert!(
                        units.contains(&PathBuf::from("storage/innobase/buf").join(u)),
                        "{u} not in {units:?}"
                    );
                }
            }
            other => panic!("{other:?}"),
        }

        match run(table.find(sr("10.5"), "clock").unwrap()) {
            PatchOutcome::DoesNotApply { error } => assert!(
                error.contains("storage/innobase/buf/buf0lru.cc") && error.contains("hunk"),
                "{error}"
            ),
            other => panic!("{other:?}"),
        }

        let dir = tempfile::tempdir().unwrap();
        let broken = dir.path().join("broken.patch");
        let text = fs::read_to_string(crate::util::repo_root().join("patches/10.11/clock.patch"))
            .unwrap()
            .replace(
                "+\t/* innodb-lab clock variant (MDEV-37992): freed_page_clock never\n\
                 +\tadvances, so buf_page_peek_if_too_old() keeps seeing 0. */\n",
                "+\tbuf_pool.no_such_member_for_the_test += 1;\n+\n",
            );
        assert!(text.contains("no_such_member_for_the_test"));
        fs::write(&broken, text).unwrap();
        let entry = Entry {
            variant: "broken".into(),
            series: vec![Series::V10_11],
            file: broken,
            description: "does not compile".into(),
            refuse_on: None,
            line: 0,
        };
        match run(&entry) {
            PatchOutcome::CompileFailed {
                failed,
                first_error,
                patched_files,
                ..
            } => {
                assert_eq!(failed, [PathBuf::from("storage/innobase/buf/buf0lru.cc")]);
                assert!(
                    first_error.contains("no_such_member_for_the_test")
                        && first_error.contains("error:"),
                    "{first_error}"
                );
                // the patched file is kept; the shared checkout is back at
                // the tree's commit for the next patch
                let lru = PathBuf::from("storage/innobase/buf/buf0lru.cc");
                let kept = fs::read_to_string(patched_files.join(&lru)).unwrap();
                assert!(kept.contains("no_such_member_for_the_test"));
                let (_, dir) = scratch.open(&t).unwrap();
                let restored = fs::read_to_string(dir.join(&lru)).unwrap();
                assert!(!restored.contains("no_such_member_for_the_test"));
                fs::remove_dir_all(patched_files).unwrap();
            }
            other => panic!("{other:?}"),
        }
    }
}
