//! Matrices: trees x variants x workloads x thread counts x repetitions,
//! described in a TOML file. `plan` turns a file into servers and cells
//! without fetching anything (and prints it for `--dry-run`); `run` builds
//! and runs them, one server per (tree, variant, repetition) (or per
//! workload too, with `fresh_server`), writing
//! every cell's result through `results` as soon as it ends; `progress`
//! says what runs and how long the rest will take.

mod cell;
mod cost_run;
mod manifest;
pub mod names;
pub mod plan;
mod positions;
pub mod preflight;
mod prepare;
pub mod progress;
mod resume;
pub mod run;
mod run_state;
mod server_run;
mod timings;
mod trace_replay;

pub use positions::Positions;
pub use resume::undecided_cells;

pub use crate::variant::{VariantDef, DEFAULT_REMOTE};
pub use run::run;
pub use run_state::RunOptions;

use crate::dims::{CnfBase, Datadir};
use crate::record::Workload;
use crate::results::{Published, Question};
use crate::tree;
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// A matrix file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Matrix {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default = "defaults::repetitions")]
    pub repetitions: u32,
    /// A variant run twice per repetition (as `<name>` and
    /// `<name>-again`, one build) to measure the noise floor.
    #[serde(default)]
    pub control: Option<String>,
    /// Runs during which everything other than the server and sysbench
    /// used more CPU than this many cores are flagged and left out of
    /// comparisons.
    #[serde(default = "defaults::busy_cpu_bound")]
    pub busy_cpu_bound: f64,
    /// A change counts only beyond this many percent (and beyond the
    /// noise floor, and significant).
    #[serde(default = "defaults::threshold_pct")]
    pub threshold_pct: f64,
    /// Questions answered by every report: pass, fail or undecided.
    #[serde(default, rename = "question")]
    pub questions: Vec<Question>,
    /// Figures published elsewhere for its cells (an article's, a
    /// ticket's), shown beside the measured ones in every report.
    #[serde(default, rename = "published", skip_serializing_if = "Vec::is_empty")]
    pub published: Vec<Published>,
    #[serde(rename = "tree")]
    pub trees: Vec<TreeEntry>,
    #[serde(rename = "workload")]
    pub workloads: Vec<Workload>,
    /// Variants beyond the built-in ones, or settings for them.
    #[serde(default, rename = "variant")]
    pub variants: BTreeMap<String, VariantDef>,
    /// Where the servers keep their datadir: `"tmpfs"` (/dev/shm, the
    /// default: a miss is a memory copy) or `"disk"` (a miss waits for a
    /// read; `/var/tmp/innodb-lab`, or INNODB_LAB_DISK).
    #[serde(default)]
    pub datadir: Datadir,
    /// What each server's my.cnf starts from before the variant's
    /// settings: `"mark"` (the default: Mark Callaghan's settings for the
    /// series' family, scaled to the host) or `"defaults"` (the server's
    /// own, as seed 001 ran MySQL: a variant sets the pool and whatever
    /// else the question needs).
    #[serde(default)]
    pub my_cnf: CnfBase,
    /// Every workload gets a server of its own (bootstrapped, loaded and
    /// armed for it), so none starts from a pool another workload left;
    /// base and fixed of one workload run back to back. Default: one
    /// server per variant and repetition runs every workload in turn.
    #[serde(default)]
    pub fresh_server: bool,
    /// Cost passes: in each of the first `cost_passes` repetitions, after
    /// a server's timed cells, a second server of the same build and
    /// settings starts under Valgrind's callgrind (instrumentation off),
    /// loads and arms its data, and counts each cell's instructions per
    /// query over the workload's `cost_seconds` (`instructions_per_query`).
    /// 0 (the default): none. An instruction count barely moves between
    /// runs, so 4 passes a side (the fewest that a 95% interval can
    /// decide) settle a cost question that QPS on a shared host cannot.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cost_passes: u32,
    /// The variants whose servers get the cost passes, as reports label
    /// them (`base-again` is the control's second run); empty (the
    /// default): every one. The spread of one binary's own passes is the
    /// cost metric's noise floor, so a release matrix can leave the
    /// control's second run out of its passes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cost_variants: Vec<String>,
    /// The file it was read from, so that a check after the builds can
    /// still name it (None for a matrix made in code)
    #[serde(skip)]
    pub source: Option<std::path::PathBuf>,
    /// Where its parts are written in that file (none for a matrix made
    /// in code)
    #[serde(skip)]
    pub positions: Positions,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Matrix {
    /// `file:line` of a variant's settings key, or the file alone, or
    /// nothing for a matrix made in code.
    pub fn place_of_setting(&self, variant: &str, key: &str) -> String {
        let Some(path) = &self.source else {
            return String::new();
        };
        match self.positions.setting(variant, key) {
            Some(l) => format!("{}:{l}: ", path.display()),
            None => format!("{}: ", path.display()),
        }
    }
}

mod defaults {
    pub fn repetitions() -> u32 {
        3
    }
    pub fn busy_cpu_bound() -> f64 {
        crate::results::manifest::DEFAULT_BUSY_CPU_BOUND
    }
    pub fn threshold_pct() -> f64 {
        crate::results::manifest::DEFAULT_THRESHOLD_PCT
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeEntry {
    /// debian:<pkg>=<version>, git:<url>#<ref>, path:<dir> or pkg:<mariadbd>,
    /// parsed as the file is read
    pub spec: tree::TreeSpec,
    /// Label in reports; the tree's version when absent.
    pub name: Option<String>,
    pub variants: Vec<String>,
}

impl Matrix {
    /// A matrix with the defaults of the file format, for tests.
    pub fn new(name: &str, trees: Vec<TreeEntry>, workloads: Vec<Workload>) -> Matrix {
        Matrix {
            name: name.to_string(),
            description: String::new(),
            repetitions: defaults::repetitions(),
            control: None,
            busy_cpu_bound: defaults::busy_cpu_bound(),
            threshold_pct: defaults::threshold_pct(),
            questions: Vec::new(),
            published: Vec::new(),
            trees,
            workloads,
            variants: BTreeMap::new(),
            datadir: Datadir::default(),
            my_cnf: CnfBase::default(),
            fresh_server: false,
            cost_passes: 0,
            cost_variants: Vec::new(),
            source: None,
            positions: Positions::default(),
        }
    }
}

/// Reads and checks a matrix file. Errors name the file, and the line and
/// column for syntax and unknown keys.
pub fn load(path: &Path) -> Result<Matrix> {
    let text = fs::read_to_string(path)
        .with_context(|| format!("cannot read matrix {}", path.display()))?;
    let mut matrix: Matrix =
        toml::from_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    matrix.source = Some(path.to_path_buf());
    matrix.positions = Positions::read(&text);
    let at = |line: Option<usize>| match line {
        Some(line) => format!("{}:{line}", path.display()),
        None => path.display().to_string(),
    };
    names::check(&matrix, path)?;
    // settings go into my.cnf: checked here, with their line, before
    // anything is fetched or built
    for (name, def) in &matrix.variants {
        for (key, value) in &def.settings {
            if let Err(e) = crate::settings::check(key, value) {
                let at = at(matrix.positions.setting(name, key));
                bail!("{at}: [variant.{name}] settings key `{key}`: {e}");
            }
        }
    }
    if matrix.repetitions > MAX_REPETITIONS {
        let at = at(matrix.positions.repetitions());
        bail!(
            "{at}: repetitions = {}: at most {MAX_REPETITIONS}",
            matrix.repetitions
        );
    }
    if let Err(e) = check(&matrix) {
        // a workload field that cannot run carries its field: name its line
        if let Some(f) = e.downcast_ref::<crate::workload::FieldError>() {
            let at = at(matrix.positions.workload_field(&f.workload, f.field));
            bail!("{at}: [[workload]] {f}");
        }
        return Err(e.context(path.display().to_string()));
    }
    Ok(matrix)
}

/// The most repetitions a matrix may ask for.
pub const MAX_REPETITIONS: u32 = 1_000;

/// One part of a matrix for one host (`--shard K/N`). A shard holds whole
/// comparison groups: a (workload, thread count) with every tree and
/// variant of the matrix, interleaved as in a whole run, so that
/// throughput is only ever compared between runs of one host. The groups
/// are taken in the order a server runs them (`workload::run_order`) and
/// dealt out in turn: the i-th (from 0) goes to shard `i mod N + 1`. The
/// split depends on the matrix file alone, so it is the same on every host
/// and every time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: u32,
    pub n: u32,
}

impl std::str::FromStr for Shard {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<Shard> {
        let (k, n) = s
            .split_once('/')
            .with_context(|| format!("--shard `{s}`: expected K/N, e.g. 1/2"))?;
        let k: u32 = k
            .trim()
            .parse()
            .with_context(|| format!("--shard `{s}`: K is not a number"))?;
        let n: u32 = n
            .trim()
            .parse()
            .with_context(|| format!("--shard `{s}`: N is not a number"))?;
        if n == 0 || k == 0 || k > n {
            bail!("--shard `{s}`: K must be 1 to N, and N at least 1");
        }
        Ok(Shard { k, n })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl Matrix {
    /// Whether the servers of the variant labelled `label` get the cost
    /// passes.
    pub fn costs(&self, label: &str) -> bool {
        self.cost_variants.is_empty() || self.cost_variants.iter().any(|v| v == label)
    }

    /// Whether a cost server follows the server of repetition `rep` of the
    /// variant labelled `label`: in the first `cost_passes` repetitions,
    /// for the variants the matrix costs.
    pub fn cost_server_after(&self, rep: u32, label: &str) -> bool {
        rep <= self.cost_passes && self.costs(label)
    }

    /// The part of the matrix shard `s` runs: its workloads, each with the
    /// thread counts of its groups in this shard.
    pub fn shard(&self, s: Shard) -> Result<Matrix> {
        let groups = crate::workload::run_order(&self.workloads);
        let mine: Vec<(usize, u32)> = groups
            .iter()
            .enumerate()
            .filter(|(i, _)| (*i as u32) % s.n + 1 == s.k)
            .map(|(_, g)| *g)
            .collect();
        if mine.is_empty() {
            bail!(
                "shard {s} has nothing to run: the matrix has {} comparison group(s) \
                 (workload and thread count), fewer than {}",
                groups.len(),
                s.n
            );
        }
        let mut out = self.clone();
        out.workloads = self
            .workloads
            .iter()
            .enumerate()
            .filter_map(|(i, w)| {
                let threads: Vec<u32> = mine
                    .iter()
                    .filter(|(wi, _)| *wi == i)
                    .map(|(_, t)| *t)
                    .collect();
                (!threads.is_empty()).then(|| crate::record::Workload {
                    threads: crate::record::Threads::List(threads),
                    ..w.clone()
                })
            })
            .collect();
        Ok(out)
    }
}

/// What can be checked without fetching a tree.
pub fn check(matrix: &Matrix) -> Result<()> {
    if matrix.repetitions == 0 {
        bail!("repetitions must be at least 1");
    }
    if matrix.trees.is_empty() || matrix.workloads.is_empty() {
        bail!("a matrix needs at least one [[tree]] and one [[workload]]");
    }
    if matrix.cost_passes > matrix.repetitions {
        bail!(
            "cost_passes = {}: at most `repetitions` ({}): a cost pass follows a repetition's timed server",
            matrix.cost_passes,
            matrix.repetitions
        );
    }
    if matrix.cost_passes > 0 {
        if let Some(w) = matrix.workloads.iter().find(|w| w.cost_seconds == 0) {
            bail!(
                "workload `{}`: `cost_seconds` = 0 while the matrix asks for cost passes",
                w.name
            );
        }
    }
    for (name, def) in &matrix.variants {
        for (key, value) in &def.settings {
            crate::settings::check(key, value)
                .with_context(|| format!("[variant.{name}] settings key `{key}`"))?;
        }
    }
    if matrix.busy_cpu_bound.is_nan() || matrix.busy_cpu_bound <= 0.0 {
        bail!("busy_cpu_bound must be above 0 (cores)");
    }
    for t in &matrix.trees {
        if t.variants.is_empty() {
            bail!("tree `{}` lists no variants", t.spec);
        }
        for v in &t.variants {
            if v.ends_with(crate::dims::CONTROL_SUFFIX) {
                bail!(
                    "tree `{}`: variant `{v}`: names ending in `{}` are the control's second run",
                    t.spec,
                    crate::dims::CONTROL_SUFFIX
                );
            }
        }
    }
    for (name, def) in &matrix.variants {
        def.build_type()
            .with_context(|| format!("[variant.{name}] build_type"))?;
    }
    if let Some(c) = &matrix.control {
        if let Some(t) = matrix.trees.iter().find(|t| !t.variants.contains(c)) {
            bail!(
                "control = \"{c}\": tree `{}` does not list `{c}` among its variants",
                t.spec
            );
        }
    }
    if matrix.threshold_pct.is_nan() || matrix.threshold_pct < 0.0 {
        bail!("threshold_pct must be 0 or more (a magnitude in percent)");
    }
    let names = check_workloads(&matrix.workloads)?;
    // a question may name any variant a tree lists, `fixed` (what base is
    // called on a tree with the fix) and the control's second run
    let mut variants: Vec<String> = matrix
        .trees
        .iter()
        .flat_map(|t| t.variants.iter().cloned())
        .collect();
    variants.push("fixed".into());
    if let Some(c) = &matrix.control {
        variants.push(format!("{c}{}", crate::dims::CONTROL_SUFFIX));
    }
    let trees: Vec<String> = matrix.trees.iter().map(plan::tree_label).collect();
    if let Some(v) = matrix.cost_variants.iter().find(|v| !variants.contains(v)) {
        bail!(
            "cost_variants: `{v}` is not a variant of this matrix (variants: {})",
            variants.join(", ")
        );
    }
    for p in &matrix.published {
        p.check(&variants, &names)?;
    }
    for q in &matrix.questions {
        q.check(&variants, &names, &trees)?;
        if matrix.cost_passes == 0 && q.metric.info().cost_pass {
            bail!(
                "question `{}`: `{}` is counted by cost passes only, and `cost_passes` is 0: set \
                 `cost_passes` (at most `repetitions`)",
                q.name,
                q.metric.name()
            );
        }
    }
    Ok(())
}

/// Each workload on its own, each named once, and every one with the
/// first one's data; returns their names.
fn check_workloads(workloads: &[Workload]) -> Result<Vec<String>> {
    // each workload on its own first: a field that cannot run is named
    // with its line by `load`
    let mut names: Vec<String> = Vec::new();
    for w in workloads {
        w.validate().context("[[workload]]")?;
        if names.contains(&w.name) {
            bail!("[[workload]] `{}` is listed twice", w.name);
        }
        names.push(w.name.clone());
    }
    // one server loads the data once for all its cells
    let first = &workloads[0];
    if let Some(w) = workloads
        .iter()
        .find(|w| (w.tables, w.table_size) != (first.tables, first.table_size))
    {
        bail!(
            "[[workload]] `{}`: tables = {}, table_size = {} differ from `{}` ({}, {}): one server \
             loads the data once for every workload, so they must be the same",
            w.name,
            w.tables,
            w.table_size,
            first.name,
            first.tables,
            first.table_size
        );
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::repo_root;
    use std::path::PathBuf;

    fn write(dir: &Path, text: &str) -> PathBuf {
        let p = dir.join("m.toml");
        fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn a_tree_spec_is_parsed_as_the_file_is_read_and_refused_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let body = "[[workload]]\nname = \"points-covered-pk\"\n";
        let ok = write(
            dir.path(),
            &format!("name = \"x\"\n[[tree]]\nspec = \"debian:mariadb=1:10.11.18-0+deb12u1\"\nvariants = [\"base\"]\n{body}"),
        );
        let m = load(&ok).unwrap();
        assert_eq!(
            m.trees[0].spec,
            tree::TreeSpec::Debian {
                package: "mariadb".into(),
                version: "1:10.11.18-0+deb12u1".into()
            }
        );
        let bad = write(
            dir.path(),
            &format!("name = \"x\"\n[[tree]]\nvariants = [\"base\"]\nspec = \"svn:foo\"\n{body}"),
        );
        let err = format!("{:#}", load(&bad).unwrap_err());
        assert!(
            err.contains(&bad.display().to_string())
                && err.contains("line 4")
                && err.contains("tree `svn:foo`: unknown kind"),
            "{err}"
        );
    }

    #[test]
    fn a_number_out_of_range_is_refused_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let head = "name = \"x\"\n[[tree]]\nspec = \"path:/x\"\nvariants = [\"base\"]\n";
        let cases = [
            (
                "[[workload]]\nname = \"a\"\nkind = \"read-only\"\n[[workload]]\nname = \"b\"\nkind = \"read-only\"\nmeasure_seconds = 99999999999\n",
                11,
                "`measure_seconds` = 99999999999: at most 86400",
            ),
            (
                "[[workload]]\nname = \"points-covered-pk\"\nthreads = [2, 100000]\n",
                7,
                "`threads` = 100000: at most 4096",
            ),
            (
                "[[workload]]\nname = \"points-covered-pk\"\ntable_size = 0\n",
                7,
                "`table_size` must be at least 1",
            ),
        ];
        for (body, line, want) in cases {
            let p = write(dir.path(), &format!("{head}{body}"));
            let err = format!("{:#}", load(&p).unwrap_err());
            assert!(
                err.contains(&format!("{}:{line}:", p.display())) && err.contains(want),
                "{err}"
            );
        }
        let p = write(
            dir.path(),
            &format!("repetitions = 5000\n{head}[[workload]]\nname = \"points-covered-pk\"\n"),
        );
        let err = format!("{:#}", load(&p).unwrap_err());
        assert!(
            err.contains(&format!(
                "{}:1: repetitions = 5000: at most 1000",
                p.display()
            )),
            "{err}"
        );
    }

    #[test]
    fn cost_passes_are_asked_for_where_a_question_needs_them_and_no_more() {
        let dir = tempfile::tempdir().unwrap();
        let head = "name = \"x\"\n[[tree]]\nspec = \"path:/x\"\nvariants = [\"base\", \"fixed\"]\n";
        let question = "[[question]]\nname = \"no more work\"\nkind = \"no-costlier\"\nmetric = \"instructions_per_query\"\nvariant = \"fixed\"\nagainst = \"base\"\n";
        let cases = [
            (
                "repetitions = 2\ncost_passes = 3\n",
                "",
                "cost_passes = 3: at most `repetitions` (2)",
            ),
            (
                "cost_passes = 1\n",
                "cost_seconds = 0\n",
                "workload `points-covered-pk`: `cost_seconds` = 0",
            ),
            (
                "",
                "",
                "question `no more work`: `instructions_per_query` is counted by cost passes only",
            ),
            (
                "cost_passes = 1\ncost_variants = [\"base\", \"fxied\"]\n",
                "",
                "cost_variants: `fxied` is not a variant of this matrix",
            ),
        ];
        for (top, workload, want) in cases {
            let p = write(
                dir.path(),
                &format!(
                    "{top}{head}[[workload]]\nname = \"points-covered-pk\"\n{workload}{question}"
                ),
            );
            let err = format!("{:#}", load(&p).unwrap_err());
            assert!(err.contains(want), "{err}");
        }
        let p = write(
            dir.path(),
            &format!(
                "cost_passes = 1\n{head}[[workload]]\nname = \"points-covered-pk\"\n{question}"
            ),
        );
        let m = load(&p).unwrap();
        assert_eq!(m.cost_passes, 1);
        assert!(m.costs("base") && m.costs("base-again"));
        let p = write(
            dir.path(),
            &format!("cost_passes = 1\ncost_variants = [\"fixed\"]\n{head}[[workload]]\nname = \"points-covered-pk\"\n{question}"),
        );
        let m = load(&p).unwrap();
        assert!(m.costs("fixed") && !m.costs("base"));
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
    fn a_matrix_may_start_its_servers_from_their_own_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let text = |base: &str| {
            format!(
                "name = \"x\"\nmy_cnf = \"{base}\"\n[[tree]]\nspec = \"path:/x\"\nvariants = [\"base\"]\n[[workload]]\nname = \"points-covered-pk\"\n"
            )
        };
        let m = load(&write(dir.path(), &text("defaults"))).unwrap();
        assert_eq!(m.my_cnf, CnfBase::Defaults);
        let m = load(&write(dir.path(), &text("mark"))).unwrap();
        assert_eq!(m.my_cnf, CnfBase::Mark);
        let err = format!("{:#}", load(&write(dir.path(), &text("none"))).unwrap_err());
        assert!(
            err.contains("my_cnf") || (err.contains("none") && err.contains("defaults")),
            "{err}"
        );
    }

    #[test]
    fn a_setting_that_overrides_the_socket_is_refused_with_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "name = \"x\"\n[[tree]]\nspec = \"path:/x\"\nvariants = [\"net\"]\n[[workload]]\nname = \"points-covered-pk\"\n\n[variant.net]\nsettings = { innodb_old_blocks_time = 0, socket = \"/tmp/open.sock\" }\n",
        );
        let err = format!("{:#}", load(&p).unwrap_err());
        assert!(
            err.contains(&format!("{}:9:", p.display()))
                && err.contains("[variant.net]")
                && err.contains("`socket`"),
            "{err}"
        );
    }

    /// A library of the matrix author's choosing, under every spelling
    /// mariadbd takes for the option that loads one: refused when the
    /// matrix is read, with file and line, so no server ever loads it
    /// (the library, compiled here, writes a file when it is loaded).
    #[test]
    fn a_setting_that_would_load_a_library_is_refused_and_the_library_never_runs() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("loaded");
        let source = dir.path().join("evil.c");
        fs::write(
            &source,
            format!(
                "#include <stdio.h>\n__attribute__((constructor)) static void run(void) {{\n\
                 FILE *f = fopen(\"{}\", \"w\"); if (f) fclose(f);\n}}\n",
                marker.display()
            ),
        )
        .unwrap();
        let library = dir.path().join("evil.so");
        crate::util::Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(library.display().to_string())
            .arg(source.display().to_string())
            .read()
            .unwrap();
        assert!(library.exists() && !marker.exists());
        for spelling in [
            "plugin_load_add",
            "plugin-load-add",
            "loose-plugin-load-add",
            "PLUGIN_LOAD",
            "plugin_load_a",
            "plugin_dir",
        ] {
            let p = write(
                dir.path(),
                &format!(
                    "name = \"x\"\n[[tree]]\nspec = \"path:/x\"\nvariants = [\"evil\"]\n\
                     [[workload]]\nname = \"points-covered-pk\"\n\n[variant.evil]\n\
                     settings = {{ \"{spelling}\" = \"{}\" }}\n",
                    library.display()
                ),
            );
            let err = format!("{:#}", load(&p).unwrap_err());
            assert!(
                err.contains(&format!("{}:9:", p.display())) && err.contains(spelling),
                "{spelling}: {err}"
            );
        }
        assert!(!marker.exists(), "the library ran");
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
    fn a_bad_build_type_names_the_file_and_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let text = "name = \"x\"\n[[tree]]\nspec = \"path:/x\"\nvariants = [\"base\"]\n[[workload]]\nname = \"points-covered-pk\"\n[variant.base]\nbuild_type = ";
        let p = write(dir.path(), &format!("{text}\"debug\"\n"));
        let err = format!("{:#}", load(&p).unwrap_err());
        assert!(
            err.contains("m.toml")
                && err.contains("[variant.base] build_type")
                && err.contains("`debug`"),
            "{err}"
        );
        let p = write(dir.path(), &format!("{text}\"Debug\"\n"));
        let m = load(&p).unwrap();
        assert_eq!(
            m.variants["base"].build_type().unwrap(),
            crate::record::BuildType::Debug
        );
    }

    #[test]
    fn bad_tree_specs_workloads_and_controls_are_refused_before_running() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "name = \"x\"\n[[tree]]\nspec = \"mariadb-10.11\"\nvariants = [\"base\"]\n[[workload]]\nname = \"points-covered-pk\"\n");
        assert!(format!("{:#}", load(&p).unwrap_err()).contains("mariadb-10.11"));
        let p = write(dir.path(), "name = \"x\"\n[[tree]]\nspec = \"path:/x\"\nvariants = [\"base\"]\n[[workload]]\nname = \"oltp\"\n");
        assert!(format!("{:#}", load(&p).unwrap_err()).contains("unknown workload `oltp`"));
        let p = write(dir.path(), "name = \"x\"\ncontrol = \"gate\"\n[[tree]]\nspec = \"path:/x\"\nvariants = [\"base\"]\n[[workload]]\nname = \"points-covered-pk\"\n");
        let err = format!("{:#}", load(&p).unwrap_err());
        assert!(
            err.contains("m.toml") && err.contains("control = \"gate\""),
            "{err}"
        );
    }
}
