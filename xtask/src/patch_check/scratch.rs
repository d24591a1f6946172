//! The one scratch checkout of a tree that every patch of the check is
//! applied to in turn. Cloning MariaDB's tree costs 20-60 s on a 2-core
//! host; a patch touches a handful of files, so after each cell only those
//! files are put back as the tree's commit has them. A cell whose compile
//! fails keeps its patched files in a directory of its own, for a look.

use crate::record::Tree;
use crate::tree;
use crate::util::cache_root;
use anyhow::{Context, Result};
use std::fs;
use std::path::{Path, PathBuf};

pub struct Scratch {
    dir: PathBuf,
    repo: Option<git2::Repository>,
}

impl Scratch {
    /// Nothing is checked out until a cell needs it: a tree whose cells are
    /// all kept or refused costs no clone.
    pub fn new(t: &Tree) -> Self {
        Self {
            dir: tree_dir(t).join("checkout"),
            repo: None,
        }
    }

    pub fn is_open(&self) -> bool {
        self.repo.is_some()
    }

    /// The checkout, clean at the tree's commit. Made afresh on first use
    /// in a run, so a checkout an interrupted run left patched is not
    /// trusted.
    pub fn open(&mut self, t: &Tree) -> Result<(&git2::Repository, &Path)> {
        if self.repo.is_none() {
            self.repo = Some(tree::checkout(t, &self.dir)?);
        }
        Ok((self.repo.as_ref().expect("opened just above"), &self.dir))
    }

    /// Copies `files` as they are now (patched) to `keep`, under their
    /// paths in the tree; a file the patch deleted is not there to copy.
    pub fn keep_files(&self, files: &[PathBuf], keep: &Path) -> Result<()> {
        if keep.exists() {
            fs::remove_dir_all(keep)
                .with_context(|| format!("cannot remove {}", keep.display()))?;
        }
        for f in files {
            let from = self.dir.join(f);
            if !from.exists() {
                continue;
            }
            let to = keep.join(f);
            fs::create_dir_all(to.parent().expect("a file in a tree has a parent"))?;
            fs::copy(&from, &to)
                .with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))?;
        }
        Ok(())
    }

    /// Puts `files` back as the commit has them: a file the commit has is
    /// checked out again, one it does not have (added by the patch) is
    /// removed. Nothing to do when no checkout was made.
    pub fn restore(&self, files: &[PathBuf]) -> Result<()> {
        let Some(repo) = &self.repo else {
            return Ok(());
        };
        let head = repo.head()?.peel_to_tree()?;
        let mut checkout = git2::build::CheckoutBuilder::new();
        checkout.force().disable_pathspec_match(true);
        let mut any = false;
        for f in files {
            if head.get_path(f).is_ok() {
                checkout.path(f);
                any = true;
            } else {
                let added = self.dir.join(f);
                if added.exists() {
                    fs::remove_file(&added)
                        .with_context(|| format!("cannot remove {}", added.display()))?;
                }
            }
        }
        if any {
            repo.checkout_head(Some(&mut checkout))
                .with_context(|| format!("cannot restore {}", self.dir.display()))?;
        }
        Ok(())
    }
}

/// `<cache>/patch-check/<tree id 12>`: the tree's checkout and the patched
/// files its failed cells keep.
pub fn tree_dir(t: &Tree) -> PathBuf {
    cache_root()
        .join("patch-check")
        .join(&t.id[..12.min(t.id.len())])
}
