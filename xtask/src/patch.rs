//! Patches: our own minimal changes to InnoDB, one file per (series,
//! variant) under `patches/`, applied with git2 onto a variant's checkout.
//! The table `patches/patches.toml` says which file serves which series;
//! nothing looks for patch files by path convention.

use crate::dims::Series;
use crate::record::{Patch, Tree};
use crate::util::{repo_root, sha256_hex};
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::fs;
use std::path::{Path, PathBuf};

impl Patch {
    pub fn load(relative: &Path) -> Result<Patch> {
        let path = repo_root().join(relative);
        let bytes =
            fs::read(&path).with_context(|| format!("cannot read patch {}", path.display()))?;
        Ok(Patch {
            file: relative.to_path_buf(),
            sha256: sha256_hex(&bytes),
            bytes,
        })
    }
}

/// The table of patches, relative to the repository root.
pub const TABLE: &str = "patches/patches.toml";

/// The one upstream fix a table entry can be refused on: MDEV-33966
/// replaces buf_pool.freed_page_clock (which gate and clock change) with
/// access_clock/touch(), recognised by `Tree::has_upstream_fix`.
pub const UPSTREAM_FIX: &str = "MDEV-33966";

/// One `[[patch]]` of the table, with the line it starts on so that every
/// later complaint about it can point there.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Entry {
    pub variant: String,
    pub series: Vec<Series>,
    /// Relative to the repository root.
    pub file: PathBuf,
    pub description: String,
    /// An upstream fix on whose trees the patch is refused (`MDEV-33966`).
    pub refuse_on: Option<String>,
    /// 1-based line of the entry's `variant` key in the table.
    pub line: usize,
}

impl Entry {
    pub fn load(&self) -> Result<Patch> {
        Patch::load(&self.file)
    }

    /// Why the patch must not be applied to `tree`, if it must not.
    pub fn refusal(&self, tree: &Tree) -> Option<String> {
        self.refusal_given(tree.has_upstream_fix)
    }

    /// `refusal` for a tree that does or does not carry the upstream fix.
    pub fn refusal_given(&self, has_upstream_fix: bool) -> Option<String> {
        match self.refuse_on.as_deref() {
            Some(UPSTREAM_FIX) if has_upstream_fix => Some(format!("tree carries {UPSTREAM_FIX}")),
            _ => None,
        }
    }

    /// `gate 10.11 -> patches/10.11/gate.patch (patches.toml line 16)`
    pub fn describe(&self) -> String {
        format!(
            "{} {} -> {} ({TABLE} line {})",
            self.variant,
            series_list(&self.series),
            self.file.display(),
            self.line
        )
    }
}

/// `patches/patches.toml`: which patch file serves which series.
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    pub entries: Vec<Entry>,
}

/// The table as written; Spanned keeps each value's byte range so that
/// errors found after parsing still name a line.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    #[serde(default)]
    patch: Vec<RawEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    variant: toml::Spanned<String>,
    series: toml::Spanned<Vec<String>>,
    file: toml::Spanned<PathBuf>,
    description: String,
    refuse_on: Option<toml::Spanned<String>>,
}

/// `10.11+11.8`: the series an entry serves, as reports and directory
/// names write them.
pub fn series_list(series: &[Series]) -> String {
    series
        .iter()
        .map(Series::to_string)
        .collect::<Vec<_>>()
        .join("+")
}

/// 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

impl Table {
    /// Reads and checks the repository's table.
    pub fn load() -> Result<Table> {
        let path = repo_root().join(TABLE);
        let text =
            fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
        Table::parse(&text, &repo_root())
    }

    /// Parses `text` (the table, named `TABLE` in errors) and checks it
    /// against the files under `root`: every file exists and is a diff,
    /// no (variant, series) pair appears twice, `refuse_on` is known.
    pub fn parse(text: &str, root: &Path) -> Result<Table> {
        let raw: RawTable = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            anyhow!(
                "{TABLE}{}: {}",
                line.map(|l| format!(":{l}")).unwrap_or_default(),
                e.message().trim()
            )
        })?;
        let mut entries: Vec<Entry> = Vec::new();
        for r in raw.patch {
            let at =
                |span: std::ops::Range<usize>| format!("{TABLE}:{}", line_of(text, span.start));
            if r.variant.get_ref().is_empty() || r.variant.get_ref() == "base" {
                bail!(
                    "{}: variant `{}` cannot have a patch",
                    at(r.variant.span()),
                    r.variant.get_ref()
                );
            }
            if r.series.get_ref().is_empty() {
                bail!("{}: series is empty", at(r.series.span()));
            }
            let file = r.file.get_ref();
            let bytes = fs::read(root.join(file)).with_context(|| {
                format!(
                    "{}: patch file {} cannot be read",
                    at(r.file.span()),
                    file.display()
                )
            })?;
            if let Err(e) = git2::Diff::from_buffer(&bytes) {
                bail!(
                    "{}: {} is not a valid diff: {}",
                    at(r.file.span()),
                    file.display(),
                    e.message()
                );
            }
            if let Some(fix) = &r.refuse_on {
                if fix.get_ref() != UPSTREAM_FIX {
                    bail!(
                        "{}: refuse_on `{}` is not a known upstream fix (known: {UPSTREAM_FIX})",
                        at(fix.span()),
                        fix.get_ref()
                    );
                }
            }
            let line = line_of(text, r.variant.span().start);
            let series = r
                .series
                .get_ref()
                .iter()
                .map(|s| s.parse::<Series>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| anyhow::anyhow!("{}: {e}", at(r.series.span())))?;
            for s in &series {
                if let Some(prev) = entries
                    .iter()
                    .find(|e| &e.variant == r.variant.get_ref() && e.series.contains(s))
                {
                    bail!(
                        "{TABLE}:{line}: variant `{}` for series {s} is already served by {} (line {})",
                        r.variant.get_ref(),
                        prev.file.display(),
                        prev.line
                    );
                }
            }
            entries.push(Entry {
                variant: r.variant.into_inner(),
                series,
                file: r.file.into_inner(),
                description: r.description,
                refuse_on: r.refuse_on.map(|f| f.into_inner()),
                line,
            });
        }
        Ok(Table { entries })
    }

    /// The entry for `variant` on a tree of `series`.
    pub fn find(&self, series: Series, variant: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.variant == variant && e.series.contains(&series))
    }
}

/// The patch file for `variant` on a tree of `series`, as the table
/// `patches/patches.toml` names it.
pub fn for_variant(series: Series, variant: &str) -> Result<Patch> {
    let table = Table::load()?;
    match table.find(series, variant) {
        Some(entry) => entry.load(),
        None => bail!(
            "variant `{variant}` has no patch for series {series} in {TABLE} (patches: {})",
            table
                .entries
                .iter()
                .map(Entry::describe)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The patch for `variant` on `tree`, refused (with the reason) when the
/// tree already carries the upstream fix the patch conflicts with.
pub fn for_tree(tree: &Tree, variant: &str) -> Result<Patch> {
    let table = Table::load()?;
    // a fixed tree of a series without an entry (11.8) is refused too: the
    // reason is the fix, not the missing file
    let entry = table
        .find(tree.series, variant)
        .or_else(|| table.entries.iter().find(|e| e.variant == variant));
    if let Some(entry) = entry {
        if let Some(reason) = entry.refusal(tree) {
            bail!(
                "variant `{variant}` is refused on {} ({}): {reason}; {} changes what that fix removed",
                tree.spec,
                tree.version,
                entry.file.display()
            );
        }
    }
    for_variant(tree.series, variant)
}

/// The files a patch changes, relative to the tree (new names; the old
/// name for a deleted file).
pub fn changed_files(patch: &Patch) -> Result<Vec<PathBuf>> {
    let diff = parse(patch)?;
    Ok(diff
        .deltas()
        .filter_map(|d| d.new_file().path().or(d.old_file().path()))
        .map(Path::to_path_buf)
        .collect())
}

/// The diff of `patch`, or an error naming its file.
pub(crate) fn parse(patch: &Patch) -> Result<git2::Diff<'static>> {
    git2::Diff::from_buffer(&patch.bytes)
        .with_context(|| format!("{} is not a valid patch", patch.file.display()))
}

/// Every path `patch` writes or removes: for a rename both the old and the
/// new name, so a checkout can be put back as it was.
pub fn touched_files(patch: &Patch) -> Result<Vec<PathBuf>> {
    let diff = parse(patch)?;
    let mut out: Vec<PathBuf> = diff
        .deltas()
        .flat_map(|d| [d.old_file().path(), d.new_file().path()])
        .flatten()
        .map(Path::to_path_buf)
        .collect();
    out.sort();
    out.dedup();
    Ok(out)
}

/// Applies `patch` to the work tree of `repo`. Nothing is changed unless
/// every hunk applies; a hunk that does not apply is named with its file
/// and header.
pub fn apply(repo: &git2::Repository, patch: &Patch) -> Result<()> {
    let diff = parse(patch)?;
    // libgit2 reports only "hunk did not apply"; the callbacks see each file
    // and hunk just before it is tried, so the last one seen is the culprit.
    let last = RefCell::new((String::new(), String::new()));
    let mut check = git2::ApplyOptions::new();
    check.check(true);
    check.delta_callback(|delta| {
        if let Some(d) = delta {
            let path = d.new_file().path().or(d.old_file().path());
            last.borrow_mut().0 = path.map(|p| p.display().to_string()).unwrap_or_default();
            last.borrow_mut().1.clear();
        }
        true
    });
    check.hunk_callback(|hunk| {
        if let Some(h) = hunk {
            last.borrow_mut().1 = String::from_utf8_lossy(h.header()).trim().to_string();
        }
        true
    });
    let checked = repo.apply(&diff, git2::ApplyLocation::WorkDir, Some(&mut check));
    drop(check);
    if let Err(e) = checked {
        let (file, hunk) = last.into_inner();
        let workdir = repo
            .workdir()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        return Err(anyhow!(
            "{}: {} of {file} does not apply to {workdir}: {}",
            patch.file.display(),
            if hunk.is_empty() {
                "the file header".to_string()
            } else {
                format!("hunk `{hunk}`")
            },
            e.message()
        ));
    }
    repo.apply(&diff, git2::ApplyLocation::WorkDir, None)
        .with_context(|| format!("applying {}", patch.file.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    /// A series from its text, for the tests.
    fn sr(s: &str) -> crate::dims::Series {
        s.parse().unwrap()
    }
    use super::*;

    fn repo_with(file: &str, text: &str) -> (tempfile::TempDir, git2::Repository) {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let path = dir.path().join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        (dir, repo)
    }

    fn patch_of(text: &str) -> Patch {
        Patch {
            file: "patches/test/x.patch".into(),
            sha256: String::new(),
            bytes: text.as_bytes().to_vec(),
        }
    }

    const PATCH: &str = "\
diff --git a/src/a.c b/src/a.c
--- a/src/a.c
+++ b/src/a.c
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
";

    #[test]
    fn applies_to_the_work_tree() {
        let (dir, repo) = repo_with("src/a.c", "one\ntwo\nthree\n");
        apply(&repo, &patch_of(PATCH)).unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("src/a.c")).unwrap(),
            "one\nTWO\nthree\n"
        );
    }

    #[test]
    fn a_hunk_that_does_not_apply_is_named_and_nothing_changes() {
        let (dir, repo) = repo_with("src/a.c", "one\nzwei\nthree\n");
        let err = apply(&repo, &patch_of(PATCH)).unwrap_err().to_string();
        assert!(err.contains("patches/test/x.patch"), "{err}");
        assert!(err.contains("src/a.c"), "{err}");
        assert!(err.contains("@@ -1,3 +1,3 @@"), "{err}");
        assert_eq!(
            fs::read_to_string(dir.path().join("src/a.c")).unwrap(),
            "one\nzwei\nthree\n"
        );
    }

    #[test]
    fn the_repository_patches_are_valid_diffs() {
        for series in ["10.11", "10.5"] {
            for variant in ["gate", "clock"] {
                let p = for_variant(sr(series), variant).unwrap();
                git2::Diff::from_buffer(&p.bytes).unwrap();
                assert_eq!(p.sha256.len(), 64);
                assert_eq!(
                    p.file,
                    PathBuf::from(format!("patches/{series}/{variant}.patch"))
                );
            }
        }
        let err = for_variant(sr("10.11"), "nonesuch")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("nonesuch")
                && err.contains("patches/patches.toml")
                && err.contains("10.11/gate.patch"),
            "{err}"
        );
        let err = for_variant(sr("11.4"), "gate").unwrap_err().to_string();
        assert!(err.contains("series 11.4") && err.contains("line"), "{err}");
    }

    #[test]
    fn the_table_loads_and_names_only_existing_diffs() {
        let table = Table::load().unwrap();
        assert!(table.entries.len() >= 4);
        for e in &table.entries {
            let p = e.load().unwrap();
            let diff = git2::Diff::from_buffer(&p.bytes).unwrap();
            assert!(diff.deltas().len() > 0, "{} changes nothing", e.describe());
            assert!(!e.description.is_empty(), "{}", e.describe());
            // every patch but the build-noise control's layout shift and
            // the leak remedy changes code the upstream fix removes or
            // replaces (freed_page_clock, peek_if_young, the access path)
            let serves_fixed = crate::dims::SERVES_FIXED_TREES.contains(&e.variant.as_str());
            let expected = (!serves_fixed).then_some(UPSTREAM_FIX);
            assert_eq!(e.refuse_on.as_deref(), expected, "{}", e.describe());
        }
        for (series, variant, file) in [
            ("10.11", "gate", "patches/10.11/gate.patch"),
            ("10.11", "clock", "patches/10.11/clock.patch"),
            ("10.5", "gate", "patches/10.5/gate.patch"),
            ("10.5", "clock", "patches/10.5/clock.patch"),
        ] {
            assert_eq!(
                table.find(sr(series), variant).unwrap().file,
                PathBuf::from(file)
            );
        }
    }

    #[test]
    fn every_patch_file_on_disk_is_in_the_table() {
        let table = Table::load().unwrap();
        let listed: Vec<&PathBuf> = table.entries.iter().map(|e| &e.file).collect();
        let mut on_disk = Vec::new();
        for series in fs::read_dir(repo_root().join("patches")).unwrap() {
            let series = series.unwrap().path();
            if !series.is_dir() {
                continue;
            }
            for f in fs::read_dir(&series).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "patch" || e == "diff") {
                    on_disk.push(f.strip_prefix(repo_root()).unwrap().to_path_buf());
                }
            }
        }
        assert!(on_disk.len() >= 4);
        for f in &on_disk {
            assert!(listed.contains(&f), "{} is not in {TABLE}", f.display());
        }
    }

    #[test]
    fn changed_files_of_the_repository_patches() {
        let files = |series: &str, variant: &str| {
            changed_files(&for_variant(sr(series), variant).unwrap()).unwrap()
        };
        assert_eq!(
            files("10.11", "gate"),
            [PathBuf::from("storage/innobase/include/buf0buf.inl")]
        );
        assert_eq!(
            files("10.5", "clock"),
            [PathBuf::from("storage/innobase/buf/buf0lru.cc")]
        );
    }

    /// A tempdir holding `a.patch` (a valid diff) for table fixtures.
    fn fixture_root() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.patch"), PATCH).unwrap();
        fs::write(dir.path().join("junk.patch"), "this is not a diff\n").unwrap();
        dir
    }

    fn table_err(text: &str) -> String {
        let root = fixture_root();
        format!("{:#}", Table::parse(text, root.path()).unwrap_err())
    }

    const GOOD: &str = "\
[[patch]]
variant = \"gate\"
series = [\"10.11\", \"11.4\"]
file = \"a.patch\"
description = \"d\"
refuse_on = \"MDEV-33966\"
";

    #[test]
    fn a_good_table_parses_with_lines() {
        let root = fixture_root();
        let text = format!("# comment\n\n{GOOD}");
        let t = Table::parse(&text, root.path()).unwrap();
        assert_eq!(t.entries.len(), 1);
        let e = &t.entries[0];
        assert_eq!(e.line, 4);
        assert_eq!(
            t.find(sr("11.4"), "gate").unwrap().file,
            PathBuf::from("a.patch")
        );
        assert!(t.find(sr("10.5"), "gate").is_none());
        assert!(t.find(sr("10.11"), "clock").is_none());
    }

    #[test]
    fn a_bad_table_names_the_file_and_line() {
        // syntax error
        let err = table_err("[[patch]]\nvariant = \"gate\nseries = []\n");
        assert!(err.starts_with("patches/patches.toml:2:"), "{err}");
        // a misspelt key
        let err = table_err(&GOOD.replace("series =", "serie ="));
        assert!(err.starts_with("patches/patches.toml:"), "{err}");
        assert!(err.contains("serie"), "{err}");
        // a missing file
        let err = table_err(&GOOD.replace("a.patch", "missing.patch"));
        assert!(
            err.starts_with("patches/patches.toml:4:") && err.contains("missing.patch"),
            "{err}"
        );
        // not a diff
        let err = table_err(&GOOD.replace("a.patch", "junk.patch"));
        assert!(
            err.starts_with("patches/patches.toml:4:") && err.contains("not a valid diff"),
            "{err}"
        );
        // an unknown fix
        let err = table_err(&GOOD.replace("MDEV-33966", "MDEV-1"));
        assert!(
            err.starts_with("patches/patches.toml:6:") && err.contains("MDEV-1"),
            "{err}"
        );
        // the same (variant, series) twice
        let err = table_err(&format!("{GOOD}\n{}", GOOD.replace("\"10.11\", ", "")));
        assert!(
            err.starts_with("patches/patches.toml:9:")
                && err.contains("11.4")
                && err.contains("line 2"),
            "{err}"
        );
        // empty series, and a patch for base
        let err = table_err(&GOOD.replace("[\"10.11\", \"11.4\"]", "[]"));
        assert!(err.starts_with("patches/patches.toml:3:"), "{err}");
        let err = table_err(&GOOD.replace("\"gate\"", "\"base\""));
        assert!(err.starts_with("patches/patches.toml:2:"), "{err}");
    }

    #[test]
    fn a_fixed_tree_refuses_the_entry() {
        let root = fixture_root();
        let t = Table::parse(GOOD, root.path()).unwrap();
        let e = t.find(sr("11.4"), "gate").unwrap();
        assert_eq!(e.refusal_given(false), None);
        assert_eq!(e.refusal_given(true).unwrap(), "tree carries MDEV-33966");
    }

    #[test]
    fn for_tree_refuses_a_fixed_tree_of_any_series() {
        // through serde, so fields added to Tree later keep their defaults
        let tree = |series: &str, fixed: bool| -> Tree {
            serde_json::from_value(serde_json::json!({
                "spec": format!("path:/t/{series}"),
                "id": "0".repeat(40),
                "src": "/t",
                "version": format!("{series}.1"),
                "series": series,
                "has_upstream_fix": fixed,
            }))
            .unwrap()
        };
        assert_eq!(
            for_tree(&tree("10.5", false), "clock").unwrap().file,
            PathBuf::from("patches/10.5/clock.patch")
        );
        for series in ["10.11", "11.8"] {
            let err = for_tree(&tree(series, true), "gate")
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("refused") && err.contains("tree carries MDEV-33966"),
                "{err}"
            );
        }
        // 11.8 before the fix takes the 10.11 gate (it applies unchanged)
        // and a port of its own for fixed
        assert_eq!(
            for_tree(&tree("11.8", false), "gate").unwrap().file,
            PathBuf::from("patches/10.11/gate.patch")
        );
        assert_eq!(
            for_tree(&tree("11.8", false), "fixed").unwrap().file,
            PathBuf::from("patches/11.8/fixed.patch")
        );
        let err = for_tree(&tree("12.3", false), "gate")
            .unwrap_err()
            .to_string();
        assert!(err.contains("no patch for series 12.3"), "{err}");
    }
}
