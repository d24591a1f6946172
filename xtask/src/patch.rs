//! Patches: our own minimal changes to InnoDB, one file per (series,
//! variant) under `patches/`, applied with git2 onto a variant's checkout.

use crate::util::{repo_root, sha256_hex};
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::fs;
use std::path::{Path, PathBuf};

/// A patch file and the hash that keys builds made with it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Patch {
    /// Relative to the repository root, e.g. `patches/10.11/gate.patch`.
    pub file: PathBuf,
    pub sha256: String,
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

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

/// The patch file for `variant` on a tree of `series`, if the repository
/// has one: `patches/<series>/<variant>.patch`.
pub fn for_variant(series: &str, variant: &str) -> Result<Patch> {
    let relative = PathBuf::from("patches")
        .join(series)
        .join(format!("{variant}.patch"));
    if !repo_root().join(&relative).exists() {
        let available: Vec<String> = fs::read_dir(repo_root().join("patches"))
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .flat_map(|series_dir| {
                let s = series_dir.file_name().to_string_lossy().into_owned();
                fs::read_dir(series_dir.path())
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e.ok())
                    .map(move |f| format!("{s}/{}", f.file_name().to_string_lossy()))
            })
            .collect();
        bail!(
            "variant `{variant}` has no patch for series {series}: {} does not exist (patches: {})",
            relative.display(),
            available.join(", ")
        );
    }
    Patch::load(&relative)
}

/// Applies `patch` to the work tree of `repo`. Nothing is changed unless
/// every hunk applies; a hunk that does not apply is named with its file
/// and header.
pub fn apply(repo: &git2::Repository, patch: &Patch) -> Result<()> {
    let diff = git2::Diff::from_buffer(&patch.bytes)
        .with_context(|| format!("{} is not a valid patch", patch.file.display()))?;
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
                let p = for_variant(series, variant).unwrap();
                git2::Diff::from_buffer(&p.bytes).unwrap();
                assert_eq!(p.sha256.len(), 64);
            }
        }
        let err = for_variant("10.11", "nonesuch").unwrap_err().to_string();
        assert!(
            err.contains("patches/10.11/nonesuch.patch") && err.contains("10.11/gate.patch"),
            "{err}"
        );
    }
}
