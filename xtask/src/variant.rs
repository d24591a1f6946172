//! Variants: what a variant name means on a given tree. The one place that
//! decides it, used by `cargo xtask build --variant` and by matrices alike.
//!
//! `base` is the tree as it is (reported as `fixed` on a tree that carries
//! the MDEV-33966 fix); a `[variant.<name>]` definition gives a patch file,
//! my.cnf settings or upstream commits to cherry-pick; any other name is
//! looked up in the patch table (`patches/patches.toml`) for the tree's
//! series, which also refuses gate and clock on a tree with the fix.

use crate::dims::{self, Engine, Series};
use crate::patch;
use crate::record::{BuildType, CherryPick, Patch, Tree, TreeKind};
use crate::tree;
use crate::util::sha256_hex;
use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A variant: a patch, my.cnf settings, or both. `base` is the tree as it
/// is; a name without a definition means the patch table's entry.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantDef {
    #[serde(default)]
    pub description: String,
    /// A patch file relative to the repository root.
    pub patch: Option<PathBuf>,
    /// my.cnf settings applied on top of Mark's (e.g. the
    /// innodb_old_blocks_time workaround).
    #[serde(default)]
    pub settings: BTreeMap<String, toml::Value>,
    /// Upstream commits to cherry-pick (the `fixed` variant on a tree
    /// without the MDEV-33966 fix), from `remote`.
    #[serde(default)]
    pub cherry_pick: Vec<String>,
    pub remote: Option<String>,
    /// cmake's build type: RelWithDebInfo (the default), Release or Debug.
    pub build_type: Option<String>,
}

/// Where `cherry_pick` commits come from unless a variant names a remote.
pub const DEFAULT_REMOTE: &str = "https://github.com/MariaDB/server";

/// A variant made concrete for a tree.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The name reports use: `base` on a tree that carries the fix is
    /// reported as `fixed`, which is what it is.
    pub label: String,
    pub change: SourceChange,
    pub settings: BTreeMap<String, String>,
    pub build_type: BuildType,
}

impl VariantDef {
    /// The build type it asks for; an unknown one is an error.
    pub fn build_type(&self) -> Result<BuildType> {
        self.build_type
            .as_deref()
            .map_or(Ok(BuildType::default()), str::parse)
    }

    /// The settings as my.cnf strings.
    pub fn settings_text(&self) -> BTreeMap<String, String> {
        self.settings
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string()),
                )
            })
            .collect()
    }

    /// Only my.cnf settings: no patch, nothing to pick.
    pub fn settings_only(&self) -> bool {
        self.patch.is_none() && self.cherry_pick.is_empty() && !self.settings.is_empty()
    }
}

/// What `name` means on `tree`, given the matrix's definitions (none for
/// `cargo xtask build`).
pub fn resolve(defs: &BTreeMap<String, VariantDef>, tree: &Tree, name: &str) -> Result<Resolved> {
    let def = defs.get(name).cloned().unwrap_or_default();
    let settings = def.settings_text();
    let settings_only = def.settings_only();
    let build_type = def.build_type()?;
    let plain = |label: &str| Resolved {
        label: label.to_string(),
        change: SourceChange::None,
        settings: settings.clone(),
        build_type,
    };
    if matches!(tree.kind(), TreeKind::Packaged { .. }) {
        if name == dims::BASE || settings_only {
            return Ok(plain(name));
        }
        bail!(
            "variant `{name}` is refused on {}: a packaged server cannot be patched; \
             only settings variants ([variant.{name}] settings = {{...}}) apply to it",
            tree.spec
        );
    }
    // on a tree that carries the fix, base is the fixed variant
    if tree.has_upstream_fix && (name == dims::BASE || name == dims::FIXED) {
        return Ok(plain(dims::FIXED));
    }
    // a built-in name keeps its patch when the matrix gives it settings
    let table = patch::Table::load()?;
    let builtin = name == dims::FIXED || table.find(tree.series, name).is_some();
    if settings_only && !builtin && name != dims::BASE {
        if let Some(file) = unlisted_patch(&crate::util::repo_root(), tree.series, name) {
            // a settings variant of base under the name of a patch would
            // build base where the user meant the patch
            bail!(
                "variant `{name}` has only settings in the matrix, but {} exists and {} \
                 does not list it: add it to the table ([[patch]] variant = \"{name}\") to \
                 build it, or rename the variant to run base with these settings",
                file.display(),
                patch::TABLE
            );
        }
    }
    let change = if let Some(file) = &def.patch {
        SourceChange::Patch(Patch::load(file)?)
    } else if !def.cherry_pick.is_empty() {
        SourceChange::CherryPick(CherryPick {
            remote: def
                .remote
                .clone()
                .unwrap_or_else(|| DEFAULT_REMOTE.to_string()),
            commits: def.cherry_pick.clone(),
        })
    } else if name == dims::BASE || (settings_only && !builtin) {
        SourceChange::None
    } else if name == dims::FIXED && table.find(tree.series, dims::FIXED).is_some() {
        // our own lazy-promotion patch for the series (patches/patches.toml)
        SourceChange::Patch(patch::for_tree(tree, dims::FIXED)?)
    } else if name == dims::FIXED && tree.series.engine == Engine::MySql {
        bail!(
            "variant `fixed` on {} ({}): MDEV-33966's fix is MariaDB's and has no MySQL port: \
             run base, or give the variant a patch of your own ([variant.fixed] patch = \"<file>\")",
            tree.spec,
            tree.version
        );
    } else if name == dims::FIXED {
        bail!(
            "variant `fixed` on {} ({}): the tree does not carry the MDEV-33966 fix; \
             name the upstream commits in the matrix: [variant.fixed] cherry_pick = [\"<commit>\", ...] \
             (and remote = \"<url>\" unless it is {DEFAULT_REMOTE})",
            tree.spec,
            tree.version
        );
    } else {
        // the patch table refuses gate and clock on a tree with the fix
        SourceChange::Patch(patch::for_tree(tree, name)?)
    };
    Ok(Resolved {
        label: name.to_string(),
        change,
        settings,
        build_type,
    })
}

/// `patches/<series>/<name>.patch` under `root`, where that file exists.
fn unlisted_patch(root: &Path, series: Series, name: &str) -> Option<PathBuf> {
    let file = Path::new("patches")
        .join(series.to_string())
        .join(format!("{name}.patch"));
    root.join(&file).is_file().then_some(file)
}

/// What a variant would be on a tree of `series` (when the spec tells it)
/// without fetching the tree: for `matrix --dry-run`.
pub fn describe_unfetched(
    defs: &BTreeMap<String, VariantDef>,
    series: Option<Series>,
    name: &str,
) -> String {
    let def = defs.get(name).cloned().unwrap_or_default();
    let settings: Vec<String> = def
        .settings_text()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let with_settings = |what: String| {
        if settings.is_empty() {
            what
        } else {
            format!("{what}; my.cnf {}", settings.join(", "))
        }
    };
    if let Some(file) = &def.patch {
        return with_settings(format!("patch {}", file.display()));
    }
    if !def.cherry_pick.is_empty() {
        return with_settings(format!(
            "cherry-pick {} from {}",
            def.cherry_pick.join(", "),
            def.remote.as_deref().unwrap_or(DEFAULT_REMOTE)
        ));
    }
    let table_entry = patch::Table::load()
        .ok()
        .and_then(|t| series.and_then(|s| t.find(s, name).map(|e| e.file.display().to_string())));
    if name == dims::BASE || (def.settings_only() && table_entry.is_none() && name != dims::FIXED) {
        return with_settings("the tree as it is (fixed if it carries MDEV-33966)".into());
    }
    with_settings(match (table_entry, series) {
        (Some(file), _) => format!(
            "patch {file} (patch table, series {})",
            series.map_or("?".to_string(), |s| s.to_string())
        ),
        (None, Some(s)) => format!(
            "no patch for series {s} in {}: would be refused unless the tree carries the fix",
            patch::TABLE
        ),
        (None, None) => format!("patch from {} for the tree's series", patch::TABLE),
    })
}

/// What a variant changes in the tree's source before it is built.
#[derive(Debug, Clone)]
pub enum SourceChange {
    None,
    Patch(Patch),
    CherryPick(CherryPick),
}

impl SourceChange {
    /// The part of the build key that identifies the change: the patch's
    /// hash, or a hash of the remote and commits picked.
    pub(crate) fn key(&self) -> Option<String> {
        match self {
            SourceChange::None => None,
            SourceChange::Patch(p) => Some(p.sha256.clone()),
            SourceChange::CherryPick(c) => Some(sha256_hex(
                format!("cherry-pick\n{}\n{}", c.remote, c.commits.join("\n")).as_bytes(),
            )),
        }
    }

    /// The patch, for a patch.
    pub(crate) fn patch(&self) -> Option<&Patch> {
        match self {
            SourceChange::Patch(p) => Some(p),
            _ => None,
        }
    }

    /// The commits picked, for a cherry-pick.
    pub(crate) fn cherry_pick(&self) -> Option<&CherryPick> {
        match self {
            SourceChange::CherryPick(c) => Some(c),
            _ => None,
        }
    }

    pub(crate) fn apply(&self, repo: &git2::Repository) -> Result<()> {
        match self {
            SourceChange::None => Ok(()),
            SourceChange::Patch(p) => patch::apply(repo, p),
            SourceChange::CherryPick(c) => tree::cherry_pick(repo, &c.remote, &c.commits),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn tree(fixed: bool) -> Tree {
        Tree {
            spec: "path:/x".into(),
            id: "0".into(),
            src: "/x".into(),
            version: "11.8.10".into(),
            series: Series::V10_11,
            has_upstream_fix: fixed,
            package: None,
        }
    }

    fn defs(text: &str) -> BTreeMap<String, VariantDef> {
        #[derive(Deserialize)]
        struct VariantTables {
            variant: BTreeMap<String, VariantDef>,
        }
        toml::from_str::<VariantTables>(text).unwrap().variant
    }

    #[test]
    fn a_variant_carries_its_build_type() {
        let m =
            defs("[variant.base]\nbuild_type = \"Debug\"\n[variant.bad]\nbuild_type = \"debug\"\n");
        let r = resolve(&m, &tree(false), "base").unwrap();
        assert_eq!(r.build_type, BuildType::Debug);
        assert!(matches!(r.change, SourceChange::None));
        assert_eq!(
            resolve(&m, &tree(true), "base").unwrap().build_type,
            BuildType::Debug
        );
        assert_eq!(
            resolve(&m, &tree(false), "gate").unwrap().build_type,
            BuildType::RelWithDebInfo
        );
        let err = resolve(&m, &tree(false), "bad").unwrap_err().to_string();
        assert!(err.contains("`debug`"), "{err}");
    }

    #[test]
    fn variants_resolve_to_patches_or_settings() {
        let mut m =
            defs("[variant.workaround]\nsettings = { innodb_old_blocks_time = 2147483647 }\n");
        let base = resolve(&m, &tree(false), "base").unwrap();
        assert!(matches!(base.change, SourceChange::None) && base.settings.is_empty());
        let gate = resolve(&m, &tree(false), "gate").unwrap();
        let SourceChange::Patch(p) = gate.change else {
            panic!("gate is a patch")
        };
        assert_eq!(p.file, PathBuf::from("patches/10.11/gate.patch"));
        let w = resolve(&m, &tree(false), "workaround").unwrap();
        assert!(matches!(w.change, SourceChange::None));
        assert_eq!(w.settings["innodb_old_blocks_time"], "2147483647");
        // settings on a built-in name keep its patch
        let with = defs(
            "[variant.gate]\nsettings = { innodb_lru_scan_depth = 128 }\n\
             [variant.fixed]\nsettings = { innodb_lru_scan_depth = 128 }\n",
        );
        for (name, file) in [("gate", "gate.patch"), ("fixed", "fixed.patch")] {
            let r = resolve(&with, &tree(false), name).unwrap();
            let SourceChange::Patch(p) = r.change else {
                panic!("{name} with settings lost its patch")
            };
            assert_eq!(p.file, PathBuf::from("patches/10.11").join(file));
            assert_eq!(r.settings["innodb_lru_scan_depth"], "128");
            assert!(describe_unfetched(&with, "10.11".parse().ok(), name).contains(file));
        }
        let err = resolve(&m, &tree(true), "gate").unwrap_err().to_string();
        assert!(
            err.contains("refused") && err.contains("MDEV-33966"),
            "{err}"
        );
        // a settings-only name that is a patch file: refused, naming it
        let mut w = m.clone();
        w.insert("traced".into(), w["workaround"].clone());
        let err = resolve(&w, &tree(false), "traced").map(|r| r.label);
        assert!(err.is_ok(), "a listed patch keeps its patch: {err:?}");
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("patches/10.11")).unwrap();
        std::fs::write(root.path().join("patches/10.11/mine.patch"), "").unwrap();
        assert_eq!(
            unlisted_patch(root.path(), Series::V10_11, "mine"),
            Some(PathBuf::from("patches/10.11/mine.patch"))
        );
        assert_eq!(unlisted_patch(root.path(), Series::V10_5, "mine"), None);
        assert_eq!(
            unlisted_patch(root.path(), Series::V10_11, "workaround"),
            None
        );
        m.insert("typo".into(), VariantDef::default());
        let err = resolve(&m, &tree(false), "typo").unwrap_err().to_string();
        assert!(
            err.contains("`typo`") && err.contains("patches.toml"),
            "{err}"
        );

        // the fixed variant: the tree as it is when it carries the fix
        assert_eq!(resolve(&m, &tree(true), "base").unwrap().label, "fixed");
        let fixed = resolve(&m, &tree(true), "fixed").unwrap();
        assert!(matches!(fixed.change, SourceChange::None));
        // ...our own patch of the series when it does not
        let SourceChange::Patch(p) = resolve(&m, &tree(false), "fixed").unwrap().change else {
            panic!("fixed on a 10.11 tree without the fix is our patch")
        };
        assert_eq!(p.file, PathBuf::from("patches/10.11/fixed.patch"));
        // a series without our patch needs upstream commits to pick
        let mut t105 = tree(false);
        t105.series = Series::V10_5;
        let err = resolve(&m, &t105, "fixed").unwrap_err().to_string();
        assert!(err.contains("cherry_pick"), "{err}");
        let def = VariantDef {
            cherry_pick: vec!["abc".into()],
            ..Default::default()
        };
        m.insert("fixed".into(), def);
        let SourceChange::CherryPick(c) = resolve(&m, &tree(false), "fixed").unwrap().change else {
            panic!("fixed is a cherry-pick")
        };
        assert_eq!((c.remote.as_str(), c.commits.len()), (DEFAULT_REMOTE, 1));

        // a packaged server takes settings variants only
        let mut pkg = tree(false);
        pkg.package = Some("/usr/sbin/mariadbd".into());
        assert!(resolve(&m, &pkg, "workaround").is_ok());
        let err = resolve(&m, &pkg, "gate").unwrap_err().to_string();
        assert!(
            err.contains("packaged server") && err.contains("settings"),
            "{err}"
        );
    }

    #[test]
    fn unfetched_variants_are_described_from_the_table() {
        let m = defs("[variant.workaround]\nsettings = { innodb_old_blocks_time = 2147483647 }\n");
        assert_eq!(
            describe_unfetched(&m, "10.11".parse().ok(), "gate"),
            "patch patches/10.11/gate.patch (patch table, series 10.11)"
        );
        assert!(describe_unfetched(&m, "10.11".parse().ok(), "workaround")
            .ends_with("my.cnf innodb_old_blocks_time=2147483647"));
        assert!(
            describe_unfetched(&m, "9.9".parse().ok(), "gate").contains("no patch for series 9.9")
        );
    }
}
