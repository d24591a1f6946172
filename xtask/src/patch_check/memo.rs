//! Outcomes of the patch check kept across runs: one (patch, tree) cell is
//! checked again only when something that decides it changed. The key is
//! the patch's sha256, the tree's commit, the compiler, the cmake options
//! and this checker's own version. Kept: what a checkout and a compile
//! decided. Not kept: a cell whose outcome could be the machinery's
//! (nothing compiled), and a refusal, which costs nothing to decide again.

use super::PatchOutcome;
use crate::util::{cache_root, sha256_hex, write_json};
use serde::Serialize;
use std::path::PathBuf;

/// Move when the check itself changes what it decides (how units are
/// chosen, how a compile is judged): every kept outcome is then redone.
const CHECKER_VERSION: u32 = 1;

#[derive(Serialize)]
struct Key<'a> {
    checker: u32,
    patch_sha256: &'a str,
    tree_id: &'a str,
    compiler: &'a str,
    cmake_options: &'a [String],
}

/// The file of one cell's kept outcome.
pub fn path(
    patch_sha256: &str,
    tree_id: &str,
    compiler: &str,
    cmake_options: &[String],
) -> PathBuf {
    let key = Key {
        checker: CHECKER_VERSION,
        patch_sha256,
        tree_id,
        compiler,
        cmake_options,
    };
    let hash = sha256_hex(&serde_json::to_vec(&key).expect("a key serializes"));
    cache_root()
        .join("patch-check")
        .join("outcomes")
        .join(format!("{}.json", &hash[..24]))
}

/// The kept outcome at `path`, if any.
pub fn recall(path: &std::path::Path) -> Option<PatchOutcome> {
    crate::util::read_json_if_any(path)
}

/// Keeps `outcome` when it is the patch's and the compiler's answer, not
/// a failure of the machinery around them.
pub fn keep(path: &std::path::Path, outcome: &PatchOutcome) -> anyhow::Result<()> {
    if worth_keeping(outcome) {
        write_json(path, outcome)?;
    }
    Ok(())
}

fn worth_keeping(outcome: &PatchOutcome) -> bool {
    !matches!(
        outcome,
        PatchOutcome::NotCompiled { .. } | PatchOutcome::Refused { .. }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_input_of_the_decision_moves_the_key() {
        let opts = vec!["-DA=1".to_string()];
        let base = path("p", "t", "g++ 12", &opts);
        assert_eq!(base, path("p", "t", "g++ 12", &opts));
        assert_ne!(base, path("q", "t", "g++ 12", &opts));
        assert_ne!(base, path("p", "u", "g++ 12", &opts));
        assert_ne!(base, path("p", "t", "g++ 13", &opts));
        assert_ne!(base, path("p", "t", "g++ 12", &["-DA=2".to_string()]));
    }

    #[test]
    fn a_machinery_failure_is_not_kept() {
        assert!(!worth_keeping(&PatchOutcome::NotCompiled {
            error: "cannot configure".into()
        }));
        assert!(worth_keeping(&PatchOutcome::DoesNotApply {
            error: "hunk 3".into()
        }));
        assert!(worth_keeping(&PatchOutcome::Compiled { units: vec![] }));
        assert!(!worth_keeping(&PatchOutcome::Refused {
            reason: "tree carries MDEV-33966".into()
        }));
    }
}
