//! Matrices: trees x variants x workloads x repetitions, described in a
//! TOML file, run with the repetitions interleaved, every run written to
//! its own JSON file as soon as it ends, failures recorded and the rest of
//! the matrix carried on.

use crate::build::{self, Build, CherryPick, SourceChange};
use crate::host::Host;
use crate::patch::{self, Patch};
use crate::report;
use crate::server::{self, MyCnf, Server, ServerBinaries};
use crate::tree::{self, Tree};
use crate::util::{human_duration, repo_root, write_atomic, write_json, Stage};
use crate::workload::{self, Outcome, Workload};
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Version of the run-result JSON layout.
pub const SCHEMA_VERSION: u32 = 1;

/// A matrix file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Matrix {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default = "three")]
    pub repetitions: u32,
    #[serde(rename = "tree")]
    pub trees: Vec<TreeEntry>,
    #[serde(rename = "workload")]
    pub workloads: Vec<Workload>,
    /// Variants beyond the built-in ones, or settings for them.
    #[serde(default, rename = "variant")]
    pub variants: BTreeMap<String, VariantDef>,
}

fn three() -> u32 {
    3
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeEntry {
    /// debian:<pkg>=<version>, git:<url>#<ref> or path:<dir>
    pub spec: String,
    /// Label in reports; the tree's version when absent.
    pub name: Option<String>,
    pub variants: Vec<String>,
}

/// A variant: a patch, my.cnf settings, or both. `base` is the tree as it
/// is; a name without a definition means `patches/<series>/<name>.patch`.
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
}

/// Where `cherry_pick` commits come from unless a variant names a remote.
pub const DEFAULT_REMOTE: &str = "https://github.com/MariaDB/server";

/// Reads and checks a matrix file. Errors name the file, and the line and
/// column for syntax and unknown keys.
pub fn load(path: &Path) -> Result<Matrix> {
    let text = fs::read_to_string(path)
        .with_context(|| format!("cannot read matrix {}", path.display()))?;
    let matrix: Matrix = toml::from_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    if matrix.repetitions == 0 {
        bail!("{}: repetitions must be at least 1", path.display());
    }
    if matrix.trees.is_empty() || matrix.workloads.is_empty() {
        bail!(
            "{}: a matrix needs at least one [[tree]] and one [[workload]]",
            path.display()
        );
    }
    for t in &matrix.trees {
        t.spec
            .parse::<tree::TreeSpec>()
            .with_context(|| format!("{}: [[tree]] spec", path.display()))?;
        if t.variants.is_empty() {
            bail!("{}: tree `{}` lists no variants", path.display(), t.spec);
        }
    }
    for w in &matrix.workloads {
        w.validate()
            .with_context(|| format!("{}: [[workload]]", path.display()))?;
    }
    Ok(matrix)
}

/// One result file: one repetition of one (tree, variant, workload) cell.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunResult {
    pub schema_version: u32,
    pub matrix: String,
    pub tree: String,
    pub variant: String,
    pub workload: String,
    pub repetition: u32,
    pub ok: bool,
    pub error: Option<String>,
    /// the server's error log tail when it failed to start or died
    pub error_log_tail: Option<String>,
    pub tree_info: Option<Tree>,
    pub build: Option<Build>,
    pub variant_settings: BTreeMap<String, String>,
    pub my_cnf: Option<MyCnf>,
    pub my_cnf_text: Option<String>,
    pub workload_def: Workload,
    pub host: Host,
    pub tool_revision: String,
    pub started_unix: u64,
    pub wall_seconds: f64,
    pub outcome: Option<Outcome>,
    pub clean_shutdown: Option<bool>,
}

/// Options of `cargo xtask matrix`.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub out: PathBuf,
    /// keep each run's datadir on /dev/shm
    pub keep: bool,
    /// re-run cells that already have a matching successful result
    pub force: bool,
}

/// A variant made concrete for a tree.
#[derive(Debug, Clone)]
struct ResolvedVariant {
    /// The name reports use: `base` on a tree that carries the fix is
    /// reported as `fixed`, which is what it is.
    label: String,
    change: SourceChange,
    settings: BTreeMap<String, String>,
}

fn resolve_variant(matrix: &Matrix, tree: &Tree, name: &str) -> Result<ResolvedVariant> {
    let def = matrix.variants.get(name).cloned().unwrap_or_default();
    let settings: BTreeMap<String, String> = def
        .settings
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string()),
            )
        })
        .collect();
    let settings_only = def.patch.is_none() && def.cherry_pick.is_empty() && !settings.is_empty();
    let plain = |label: &str| ResolvedVariant {
        label: label.to_string(),
        change: SourceChange::None,
        settings: settings.clone(),
    };
    if tree.package.is_some() {
        if name == "base" || settings_only {
            return Ok(plain(name));
        }
        bail!(
            "variant `{name}` is refused on {}: a packaged server cannot be patched; \
             only settings variants ([variant.{name}] settings = {{...}}) apply to it",
            tree.spec
        );
    }
    // on a tree that carries the fix, base is the fixed variant
    if tree.has_upstream_fix && (name == "base" || name == "fixed") {
        return Ok(plain("fixed"));
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
    } else if name == "base" || settings_only {
        SourceChange::None
    } else if name == "fixed" && patch::Table::load()?.find(&tree.series, "fixed").is_some() {
        // our own lazy-promotion patch for the series (patches/patches.toml)
        SourceChange::Patch(patch::for_tree(tree, "fixed")?)
    } else if name == "fixed" {
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
    Ok(ResolvedVariant {
        label: name.to_string(),
        change,
        settings,
    })
}

fn tool_revision() -> String {
    let Ok(repo) = git2::Repository::open(repo_root()) else {
        return "unknown".into();
    };
    let head = repo
        .head()
        .ok()
        .and_then(|h| h.target())
        .map(|o| o.to_string())
        .unwrap_or_else(|| "none".into());
    let dirty = repo
        .statuses(Some(git2::StatusOptions::new().include_untracked(false)))
        .map(|s| s.iter().any(|e| e.status() != git2::Status::CURRENT))
        .unwrap_or(false);
    if dirty {
        format!("{head}+dirty")
    } else {
        head
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn result_path(out: &Path, tree: &str, variant: &str, workload: &str, rep: u32) -> PathBuf {
    out.join("runs")
        .join(crate::util::slug(tree))
        .join(crate::util::slug(variant))
        .join(crate::util::slug(workload))
        .join(format!("rep{rep}.json"))
}

/// A (tree, variant) ready to run, or the reason it is not.
struct Prepared {
    tree_name: String,
    tree: Option<Tree>,
    variant: String,
    resolved: Option<ResolvedVariant>,
    build: Option<Build>,
    binaries: Option<ServerBinaries>,
    error: Option<String>,
}

/// Runs the whole matrix; returns the number of failed runs.
pub fn run(matrix: &Matrix, opts: &RunOptions) -> Result<usize> {
    fs::create_dir_all(&opts.out)
        .with_context(|| format!("cannot create {}", opts.out.display()))?;
    let host = Host::detect();
    let revision = tool_revision();
    let matrix_start = Instant::now();
    let mut timings: Vec<(String, f64)> = Vec::new();
    let mut prepared = prepare(matrix, &mut timings)?;
    build_all(&mut prepared, &mut timings);
    // Runs, interleaved: repetition r runs the cells rotated by r, so no
    // variant always runs first or right after another.
    let cells: Vec<(usize, &Workload)> = (0..prepared.len())
        .flat_map(|i| matrix.workloads.iter().map(move |w| (i, w)))
        .collect();
    let total = cells.len() * matrix.repetitions as usize;
    let mut done = 0;
    let mut failed = 0;
    for rep in 1..=matrix.repetitions {
        let shift = (rep as usize - 1) % cells.len();
        for &(i, w) in cells[shift..].iter().chain(&cells[..shift]) {
            done += 1;
            let p = &prepared[i];
            let path = result_path(&opts.out, &p.tree_name, &p.variant, &w.name, rep);
            if !opts.force && matches_previous(&path, p, w) {
                eprintln!(
                    "--- [{done}/{total}] {} {} {} rep {rep}: already done",
                    p.tree_name, p.variant, w.name
                );
                continue;
            }
            let label = format!(
                "[{done}/{total}] {} {} {} rep {rep}",
                p.tree_name, p.variant, w.name
            );
            let stage = Stage::start(&label);
            let result = run_cell(matrix, p, w, rep, opts, &host, &revision);
            if !result.ok {
                failed += 1;
                eprintln!(
                    "error: {label}: {}",
                    result.error.as_deref().unwrap_or("failed")
                );
            } else if let Some(m) = result.outcome.as_ref().and_then(|o| o.measured.as_ref()) {
                eprintln!(
                    "    qps {:.0}, p95 {:.2} ms, pages made young/query {:.3}, cs/query {:.2}",
                    m.sysbench.qps, m.sysbench.p95_ms, m.pages_made_young_per_query, m.cs_per_query
                );
            }
            write_json(&path, &result)?;
            timings.push((label, stage.done()));
        }
    }

    write_report(&opts.out, &matrix.name, &host, &revision)?;
    timings.push(("matrix total".into(), matrix_start.elapsed().as_secs_f64()));
    eprintln!("\nstage timings:");
    for (label, secs) in &timings {
        eprintln!("  {:>9}  {label}", human_duration(*secs));
    }
    eprintln!(
        "wrote {} and {}",
        opts.out.join("summary.json").display(),
        opts.out.join("report.md").display()
    );
    Ok(failed)
}

/// Resolves every tree and variant. A variant that cannot mean anything
/// on its tree refuses the whole matrix here, before anything is built;
/// a tree that cannot be fetched fails only its own cells.
fn prepare(matrix: &Matrix, timings: &mut Vec<(String, f64)>) -> Result<Vec<Prepared>> {
    // Trees and variants first, so that refusals and bad patches show up
    // before an hour of building.
    let mut prepared: Vec<Prepared> = Vec::new();
    for entry in &matrix.trees {
        let stage = Stage::start(format!("tree {}", entry.spec));
        let tree = tree::resolve(&entry.spec);
        timings.push((format!("tree {}", entry.spec), stage.done()));
        let tree_name = entry
            .name
            .clone()
            .or_else(|| tree.as_ref().ok().map(|t| t.version.clone()))
            .unwrap_or_else(|| entry.spec.clone());
        for variant in &entry.variants {
            let mut p = Prepared {
                tree_name: tree_name.clone(),
                tree: None,
                variant: variant.clone(),
                resolved: None,
                build: None,
                binaries: None,
                error: None,
            };
            match &tree {
                Err(e) => p.error = Some(format!("{e:#}")),
                Ok(t) => {
                    p.tree = Some(t.clone());
                    match resolve_variant(matrix, t, variant) {
                        Ok(r) => {
                            p.variant = r.label.clone();
                            p.resolved = Some(r);
                        }
                        Err(e) => p.error = Some(format!("{e:#}")),
                    }
                }
            }
            if prepared
                .iter()
                .any(|q| q.tree_name == p.tree_name && q.variant == p.variant)
            {
                p.error = Some(format!(
                    "variant `{variant}` of tree `{tree_name}` is the same as another variant listed \
                     for it (`{}`); list it once",
                    p.variant
                ));
            }
            if let Some(e) = &p.error {
                eprintln!("error: {tree_name} {variant}: {e}");
            }
            prepared.push(p);
        }
    }

    // A variant that cannot mean anything on its tree (gate on a tree with
    // the fix, a patch for a packaged server, no patch for the series) is a
    // mistake in the matrix: refuse the whole matrix before building.
    let refused: Vec<String> = prepared
        .iter()
        .filter(|p| p.tree.is_some() && p.error.is_some())
        .map(|p| {
            format!(
                "  {} {}: {}",
                p.tree_name,
                p.variant,
                p.error.as_deref().unwrap_or("")
            )
        })
        .collect();
    if !refused.is_empty() {
        bail!(
            "the matrix asks for variants that cannot be built; nothing was built:\n{}",
            refused.join("\n")
        );
    }

    Ok(prepared)
}

/// Builds every prepared (tree, variant), or finds its packaged binary;
/// a failure is recorded on the variant and the others go on.
fn build_all(prepared: &mut [Prepared], timings: &mut Vec<(String, f64)>) {
    // Builds: unpatched first, so that patched variants find the cache warm.
    let mut order: Vec<usize> = (0..prepared.len()).collect();
    order.sort_by_key(|&i| {
        prepared[i]
            .resolved
            .as_ref()
            .is_some_and(|r| !matches!(r.change, SourceChange::None))
    });
    for i in order {
        let p = &mut prepared[i];
        let (Some(t), Some(r), None) = (&p.tree, &p.resolved, &p.error) else {
            continue;
        };
        if let Some(pkg) = &t.package {
            match ServerBinaries::from_package(pkg) {
                Ok(b) => p.binaries = Some(b),
                Err(e) => p.error = Some(format!("{e:#}")),
            }
            continue;
        }
        let label = format!("build {} {}", p.tree_name, p.variant);
        let stage = Stage::start(&label);
        let built = build::build(t, &p.variant, &r.change)
            .and_then(|b| Ok((ServerBinaries::from_build(&b)?, b)));
        match built {
            Ok((binaries, b)) => {
                p.build = Some(b);
                p.binaries = Some(binaries);
            }
            Err(e) => {
                eprintln!("error: {label}: {e:#}");
                p.error = Some(format!("{e:#}"));
            }
        }
        timings.push((label, stage.done()));
    }
}

/// A previous successful result for the same build, settings and workload.
fn matches_previous(path: &Path, p: &Prepared, w: &Workload) -> bool {
    let Ok(text) = fs::read_to_string(path) else {
        return false;
    };
    let Ok(prev) = serde_json::from_str::<RunResult>(&text) else {
        return false;
    };
    prev.ok
        && &prev.workload_def == w
        && prev.build.as_ref().map(|b| &b.key_hash) == p.build.as_ref().map(|b| &b.key_hash)
        && Some(&prev.variant_settings) == p.resolved.as_ref().map(|r| &r.settings)
}

fn run_cell(
    matrix: &Matrix,
    p: &Prepared,
    w: &Workload,
    rep: u32,
    opts: &RunOptions,
    host: &Host,
    revision: &str,
) -> RunResult {
    let start = Instant::now();
    let mut result = RunResult {
        schema_version: SCHEMA_VERSION,
        matrix: matrix.name.clone(),
        tree: p.tree_name.clone(),
        variant: p.variant.clone(),
        workload: w.name.clone(),
        repetition: rep,
        ok: false,
        error: p.error.clone(),
        error_log_tail: None,
        tree_info: p.tree.clone(),
        build: p.build.clone(),
        variant_settings: p
            .resolved
            .as_ref()
            .map(|r| r.settings.clone())
            .unwrap_or_default(),
        my_cnf: None,
        my_cnf_text: None,
        workload_def: w.clone(),
        host: host.clone(),
        tool_revision: revision.to_string(),
        started_unix: unix_now(),
        wall_seconds: 0.0,
        outcome: None,
        clean_shutdown: None,
    };
    if let (Some(tree), Some(binaries), None) = (&p.tree, &p.binaries, &p.error) {
        if let Err(e) = run_on_server(&mut result, tree, binaries, w, rep, opts, host) {
            result.error = Some(format!("{e:#}"));
        }
    } else if result.error.is_none() {
        result.error = Some("not built".into());
    }
    result.ok = result.error.is_none();
    result.wall_seconds = start.elapsed().as_secs_f64();
    result
}

fn run_on_server(
    result: &mut RunResult,
    tree: &Tree,
    binaries: &ServerBinaries,
    w: &Workload,
    rep: u32,
    opts: &RunOptions,
    host: &Host,
) -> Result<()> {
    let shm = Path::new("/dev/shm");
    let mut cnf = MyCnf::for_series(&tree.series, host, server::is_tmpfs(shm));
    for (k, v) in &result.variant_settings {
        cnf.set(k, v);
    }
    result.my_cnf = Some(cnf.clone());
    let name = format!("{}-{}-{}-rep{rep}", result.tree, result.variant, w.name);
    let mut server = match Server::start(binaries, &cnf, &name, opts.keep) {
        Ok(s) => s,
        Err(e) => {
            result.error_log_tail = e.chain().find_map(|c| {
                let s = c.to_string();
                s.split_once("error log tail:\n")
                    .map(|(_, t)| t.to_string())
            });
            return Err(e);
        }
    };
    result.my_cnf_text = fs::read_to_string(&server.dir.cnf).ok();
    let logs = opts.out.join("logs").join(crate::util::slug(&name));
    let outcome = workload::execute(w, &mut server, &logs);
    match outcome {
        Ok(o) => {
            result.outcome = Some(o);
            result.clean_shutdown = Some(server.stop()?);
            Ok(())
        }
        Err(e) => {
            // a crash shows in the error log: keep its tail with the error
            let died = server.exited();
            result.error_log_tail = Some(server.error_log_tail());
            if opts.keep {
                server.keep_files();
            }
            match died {
                Some(status) => Err(e.context(format!("mariadbd died ({status})"))),
                None => Err(e),
            }
        }
    }
}

/// Writes `summary.json` and `report.md` in `out` from every run result
/// under `out/runs` (this invocation's and earlier ones').
pub fn write_report(out: &Path, matrix: &str, host: &Host, revision: &str) -> Result<()> {
    let results = read_results(out)?;
    let summary = report::summarize(&results);
    write_json(&out.join("summary.json"), &summary)?;
    let md = report::markdown(matrix, host, revision, &summary, &results);
    write_atomic(&out.join("report.md"), md.as_bytes())
}

/// Every result file under `<out>/runs`.
pub fn read_results(out: &Path) -> Result<Vec<RunResult>> {
    let mut files = Vec::new();
    collect_json(&out.join("runs"), &mut files)?;
    files.sort();
    files
        .iter()
        .map(|f| {
            let text = fs::read_to_string(f)?;
            serde_json::from_str(&text)
                .with_context(|| format!("{} is not a run result", f.display()))
        })
        .collect()
}

fn collect_json(dir: &Path, into: &mut Vec<PathBuf>) -> Result<()> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(());
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_json(&p, into)?;
        } else if p.extension().is_some_and(|x| x == "json") {
            into.push(p);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, text: &str) -> PathBuf {
        let p = dir.join("m.toml");
        fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn every_matrix_in_the_repository_loads() {
        let mut n = 0;
        for e in fs::read_dir(repo_root().join("matrix")).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "toml") {
                load(&p).unwrap();
                n += 1;
            }
        }
        assert!(n >= 1);
    }

    #[test]
    fn unknown_keys_are_named_with_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "name = \"x\"\n[[tree]]\nspec = \"path:/x\"\nvariants = [\"base\"]\n[[workload]]\nname = \"points-covered-pk\"\nmeasure_secs = 3\n",
        );
        let err = format!("{:#}", load(&p).unwrap_err());
        assert!(
            err.contains("m.toml") && err.contains("measure_secs") && err.contains("line 7"),
            "{err}"
        );
    }

    #[test]
    fn bad_tree_specs_and_workloads_are_refused_before_running() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "name = \"x\"\n[[tree]]\nspec = \"mariadb-10.11\"\nvariants = [\"base\"]\n[[workload]]\nname = \"points-covered-pk\"\n");
        assert!(format!("{:#}", load(&p).unwrap_err()).contains("mariadb-10.11"));
        let p = write(dir.path(), "name = \"x\"\n[[tree]]\nspec = \"path:/x\"\nvariants = [\"base\"]\n[[workload]]\nname = \"oltp\"\n");
        assert!(format!("{:#}", load(&p).unwrap_err()).contains("unknown workload `oltp`"));
    }

    fn tree(fixed: bool) -> Tree {
        Tree {
            spec: "path:/x".into(),
            id: "0".into(),
            src: "/x".into(),
            version: "11.8.10".into(),
            series: "10.11".into(),
            has_upstream_fix: fixed,
            package: None,
        }
    }

    #[test]
    fn gate_on_a_fixed_tree_refuses_the_matrix_before_building() {
        let dir = tempfile::tempdir().unwrap();
        let (src, _) = tree::fake_server_tree(dir.path(), "inline void touch_no_stamp();\n");
        let m: Matrix = toml::from_str(&format!(
            "name = \"x\"\n[[tree]]\nspec = \"path:{}\"\nvariants = [\"base\", \"gate\"]\n\
             [[workload]]\nname = \"points-covered-pk\"\n",
            src.display()
        ))
        .unwrap();
        let out = dir.path().join("out");
        let opts = RunOptions {
            out: out.clone(),
            keep: false,
            force: false,
        };
        let err = format!("{:#}", run(&m, &opts).unwrap_err());
        assert!(
            err.contains("nothing was built") && err.contains("gate") && err.contains("MDEV-33966"),
            "{err}"
        );
        assert!(!out.join("runs").exists(), "no run was attempted");
    }

    #[test]
    fn variants_resolve_to_patches_or_settings() {
        let mut m: Matrix = toml::from_str(
            "name = \"x\"\n[[tree]]\nspec = \"path:/x\"\nvariants = [\"base\"]\n[[workload]]\nname = \"points-covered-pk\"\n\
             [variant.workaround]\nsettings = { innodb_old_blocks_time = 2147483647 }\n",
        )
        .unwrap();
        let base = resolve_variant(&m, &tree(false), "base").unwrap();
        assert!(matches!(base.change, SourceChange::None) && base.settings.is_empty());
        let gate = resolve_variant(&m, &tree(false), "gate").unwrap();
        let SourceChange::Patch(p) = gate.change else {
            panic!("gate is a patch")
        };
        assert_eq!(p.file, PathBuf::from("patches/10.11/gate.patch"));
        let w = resolve_variant(&m, &tree(false), "workaround").unwrap();
        assert!(matches!(w.change, SourceChange::None));
        assert_eq!(w.settings["innodb_old_blocks_time"], "2147483647");
        let err = resolve_variant(&m, &tree(true), "gate")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("refused") && err.contains("MDEV-33966"),
            "{err}"
        );
        m.variants.insert("typo".into(), VariantDef::default());
        let err = resolve_variant(&m, &tree(false), "typo")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`typo`") && err.contains("patches.toml"),
            "{err}"
        );

        // the fixed variant: the tree as it is when it carries the fix
        assert_eq!(
            resolve_variant(&m, &tree(true), "base").unwrap().label,
            "fixed"
        );
        let fixed = resolve_variant(&m, &tree(true), "fixed").unwrap();
        assert!(matches!(fixed.change, SourceChange::None));
        // ...and upstream commits to pick when it does not
        let err = resolve_variant(&m, &tree(false), "fixed")
            .unwrap_err()
            .to_string();
        assert!(err.contains("cherry_pick"), "{err}");
        let def = VariantDef {
            cherry_pick: vec!["abc".into()],
            ..Default::default()
        };
        m.variants.insert("fixed".into(), def);
        let SourceChange::CherryPick(c) =
            resolve_variant(&m, &tree(false), "fixed").unwrap().change
        else {
            panic!("fixed is a cherry-pick")
        };
        assert_eq!((c.remote.as_str(), c.commits.len()), (DEFAULT_REMOTE, 1));

        // a packaged server takes settings variants only
        let mut pkg = tree(false);
        pkg.package = Some("/usr/sbin/mariadbd".into());
        assert!(resolve_variant(&m, &pkg, "workaround").is_ok());
        let err = resolve_variant(&m, &pkg, "gate").unwrap_err().to_string();
        assert!(
            err.contains("packaged server") && err.contains("settings"),
            "{err}"
        );
    }
}
