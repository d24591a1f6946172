//! A matrix as a plan: the servers each repetition starts (one per tree
//! and variant, the control's second run included), the cells each server
//! runs, and the order. Made from the file alone, so `--dry-run` can print
//! it for any matrix without fetching or building anything.

use super::Matrix;
use crate::dims::CONTROL_SUFFIX;
use crate::dims::{Engine, Series};
use crate::record::CellKey;
use crate::variant;
use std::fmt::Write;

/// One server's worth of work per repetition: a variant of a tree.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerUnit {
    /// index into `Matrix::trees`
    pub tree: usize,
    /// the variant as the matrix names it
    pub variant: String,
    /// the control's second run: same build as `variant`, its own cells
    pub again: bool,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub units: Vec<ServerUnit>,
    /// (index into `Matrix::workloads`, threads), in the order a server
    /// runs them
    pub cells: Vec<(usize, u32)>,
    pub repetitions: u32,
}

impl Plan {
    pub fn of(matrix: &Matrix) -> Plan {
        let mut units = Vec::new();
        for (tree, entry) in matrix.trees.iter().enumerate() {
            for v in &entry.variants {
                units.push(ServerUnit {
                    tree,
                    variant: v.clone(),
                    again: false,
                });
                if matrix.control.as_ref() == Some(v) {
                    units.push(ServerUnit {
                        tree,
                        variant: v.clone(),
                        again: true,
                    });
                }
            }
        }
        Plan {
            units,
            cells: crate::workload::run_order(&matrix.workloads),
            repetitions: matrix.repetitions,
        }
    }

    /// The units of repetition `rep` (1-based), rotated by one each
    /// repetition so that no variant always runs first or right after
    /// the same other one.
    pub fn rotation(&self, rep: u32) -> Vec<usize> {
        let n = self.units.len();
        let shift = (rep as usize).saturating_sub(1) % n.max(1);
        (0..n).map(|i| (i + shift) % n).collect()
    }

    pub fn total_cells(&self) -> usize {
        self.units.len() * self.cells.len() * self.repetitions as usize
    }

    /// The key of every run the plan makes (all repetitions), with the
    /// labels the matrix gives (a tree that carries the fix records its
    /// `base` as `fixed`, which this does not know before the fetch).
    pub fn keys(&self, matrix: &Matrix) -> Vec<CellKey> {
        let mut keys = Vec::with_capacity(self.total_cells());
        for rep in 1..=self.repetitions {
            for u in &self.units {
                let entry = &matrix.trees[u.tree];
                for (w, t) in &self.cells {
                    keys.push(CellKey::new(
                        &tree_label(entry),
                        &run_label(&u.variant, u.again),
                        &matrix.workloads[*w].name,
                        *t,
                        rep,
                    ));
                }
            }
        }
        keys
    }
}

/// The label of a variant's run: `<name>-again` for the control's second.
pub fn run_label(label: &str, again: bool) -> String {
    if again {
        format!("{label}{CONTROL_SUFFIX}")
    } else {
        label.to_string()
    }
}

/// The name of the server of one repetition of a variant (and of one
/// workload, for a matrix with `fresh_server`): its run directory, its
/// socket, its logs.
pub fn server_name(tree_label: &str, label: &str, rep: u32, workload: Option<&str>) -> String {
    match workload {
        Some(w) => crate::util::slug(&format!("{tree_label}-{label}-rep{rep}-{w}")),
        None => crate::util::slug(&format!("{tree_label}-{label}-rep{rep}")),
    }
}

/// The server groups of one repetition, in the order they run: for each
/// unit of the rotation its whole list of cells, or, with `fresh_server`,
/// for each cell each unit in turn (so that base and fixed of a workload
/// run back to back, each on a server of its own).
pub fn server_groups(
    matrix: &Matrix,
    rotation: &[usize],
    cells: &[(usize, u32)],
) -> Vec<(usize, Vec<(usize, u32)>)> {
    if !matrix.fresh_server {
        return rotation.iter().map(|&u| (u, cells.to_vec())).collect();
    }
    // one server per workload: its thread counts share it
    let mut workloads: Vec<usize> = Vec::new();
    for &(w, _) in cells {
        if !workloads.contains(&w) {
            workloads.push(w);
        }
    }
    let mut out = Vec::new();
    for w in workloads {
        let of_w: Vec<(usize, u32)> = cells.iter().copied().filter(|&(x, _)| x == w).collect();
        for &u in rotation {
            out.push((u, of_w.clone()));
        }
    }
    out
}

/// How many cost servers the runs of `plan` start: one after each server
/// that `Matrix::cost_server_after` names, `label_of` giving a unit's
/// label.
pub fn cost_servers(matrix: &Matrix, plan: &Plan, label_of: impl Fn(usize) -> String) -> usize {
    (1..=plan.repetitions)
        .map(|rep| {
            server_groups(matrix, &plan.rotation(rep), &plan.cells)
                .iter()
                .filter(|(u, _)| matrix.cost_server_after(rep, &label_of(*u)))
                .count()
        })
        .sum()
}

/// A tree's label before it is fetched: its name, else the version its
/// spec names, else the spec.
pub fn tree_label(entry: &super::TreeEntry) -> String {
    entry
        .name
        .clone()
        .or_else(|| entry.spec.version_named())
        .unwrap_or_else(|| entry.spec.to_string())
}

/// Everything a run of `matrix` would build and run, without fetching or
/// building: the `--dry-run` listing.
pub fn describe(matrix: &Matrix) -> String {
    let plan = Plan::of(matrix);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "matrix `{}`: {} repetition{}, interleaved and rotated; busy-host bound {} cores{}",
        matrix.name,
        matrix.repetitions,
        if matrix.repetitions == 1 { "" } else { "s" },
        matrix.busy_cpu_bound,
        matrix
            .control
            .as_ref()
            .map(|c| format!("; control `{c}` (run again as `{c}{CONTROL_SUFFIX}`)"))
            .unwrap_or_default()
    );
    let builds = describe_builds(matrix, &mut s);
    let _ = writeln!(s, "\ndatadir on {}", matrix.datadir.words());
    describe_servers(matrix, &plan, &mut s);
    let _ = writeln!(s, "\nquestions ({}):", matrix.questions.len());
    for q in &matrix.questions {
        let _ = writeln!(
            s,
            "  {}: {}",
            q.name,
            question_words(q, matrix.threshold_pct)
        );
    }
    let starts =
        plan.repetitions as usize * server_groups(matrix, &plan.rotation(1), &plan.cells).len();
    let _ = writeln!(
        s,
        "\n{builds} build{}, {starts} server start{}, {} cell run{}",
        if builds == 1 { "" } else { "s" },
        if starts == 1 { "" } else { "s" },
        plan.total_cells(),
        if plan.total_cells() == 1 { "" } else { "s" }
    );
    if matrix.cost_passes > 0 {
        let servers = cost_servers(matrix, &plan, |u| {
            let u = &plan.units[u];
            run_label(&u.variant, u.again)
        });
        let _ = writeln!(
            s,
            "cost passes: in repetitions 1 to {}, after each timed server of {} a server under \
             callgrind ({servers} in all) counts every cell's instructions per query",
            matrix.cost_passes,
            if matrix.cost_variants.is_empty() {
                "every variant".to_string()
            } else {
                matrix.cost_variants.join(", ")
            }
        );
    }
    s
}

/// The `--dry-run` listing's builds: each tree with its spec and series,
/// each variant with what it applies; returns how many builds.
fn describe_builds(matrix: &Matrix, s: &mut String) -> usize {
    let _ = writeln!(
        s,
        "\nbuilds (trees are fetched and variants resolved only by a real run):"
    );
    let mut builds = 0;
    for entry in &matrix.trees {
        let version = entry.spec.version_named();
        // a spec that names a version but no engine is read as MariaDB's,
        // as every spec was before MySQL trees
        let engine = entry
            .spec
            .engine_named()
            .or(version.as_ref().map(|_| Engine::MariaDb));
        let series = engine
            .zip(version.as_deref())
            .and_then(|(engine, version)| Series::of_version(engine, version));
        let _ = writeln!(
            s,
            "  tree `{}`: {}{}",
            tree_label(entry),
            entry.spec,
            series
                .as_ref()
                .map(|x| format!(" (series {x}, from the spec)"))
                .unwrap_or_default()
        );
        for v in &entry.variants {
            builds += 1;
            let _ = writeln!(
                s,
                "    {v}: {}",
                variant::describe_unfetched(&matrix.variants, series, v)
            );
        }
    }
    builds
}

/// The `--dry-run` listing's servers: how many a repetition starts, the
/// order of the cells on each, and every cell with its repetitions.
fn describe_servers(matrix: &Matrix, plan: &Plan, s: &mut String) {
    if matrix.fresh_server {
        let _ = writeln!(
            s,
            "\nservers per repetition ({} per workload, fresh_server): each workload on servers \
             of its own, loaded for it, variants back to back; the cells in this order:",
            plan.units.len()
        );
    } else {
        let _ = writeln!(
            s,
            "\nservers per repetition ({}), each loading the data once and then running {} cell{} in this order:",
            plan.units.len(),
            plan.cells.len(),
            if plan.cells.len() == 1 { "" } else { "s" }
        );
    }
    for (w, t) in &plan.cells {
        let wl = &matrix.workloads[*w];
        let _ = writeln!(
            s,
            "    {} at {t} thread{}",
            wl.name,
            if *t == 1 { "" } else { "s" }
        );
    }
    let _ = writeln!(s, "\ncells ({} runs):", plan.total_cells());
    for key in plan.keys(matrix).iter().filter(|k| k.repetition == 1) {
        let _ = writeln!(s, "  {} x{}", key.cell(), plan.repetitions);
    }
}

/// What a question asks, in words.
pub fn question_words(q: &crate::results::Question, threshold_pct: f64) -> String {
    use crate::results::question::Kind;
    let scope = format!(
        "{}{}",
        if q.workloads.is_empty() {
            "every workload".to_string()
        } else {
            q.workloads.join(", ")
        },
        if q.trees.is_empty() {
            String::new()
        } else {
            format!(" of {}", q.trees.join(", "))
        }
    );
    let against = match &q.against_tree {
        Some(t) => format!("`{}` of {t}", q.against()),
        None => format!("`{}`", q.against()),
    };
    match q.kind {
        Kind::Below | Kind::Above => {
            let mut s = format!(
                "{} of `{}` {} {} on {scope}",
                q.metric.name(),
                q.variant,
                q.kind_word(),
                q.value.unwrap_or(f64::NAN)
            );
            if let Some(b) = q.baseline_above {
                s.push_str(&format!(" while {against} is above {b}"));
            }
            if let Some(b) = q.baseline_below {
                s.push_str(&format!(" while {against} is below {b}"));
            }
            s
        }
        Kind::NoSlower if !q.metric.higher_is_better() => format!(
            "{} of `{}` rises by no more than {}% over {against} on {scope}",
            q.metric.name(),
            q.variant,
            -q.threshold_pct.unwrap_or(-threshold_pct)
        ),
        Kind::NoSlower => format!(
            "{} of `{}` changes by no less than {:+}% against {against} on {scope}",
            q.metric.name(),
            q.variant,
            q.threshold_pct.unwrap_or(-threshold_pct)
        ),
        Kind::NotBelow => format!(
            "{} of `{}` is at most {} below {against} on {scope}, by a 95% interval of the difference",
            q.metric.name(),
            q.variant,
            q.margin.unwrap_or(0.0)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::TreeEntry;
    use crate::record::Workload;

    /// Debian's 10.11.18, base and fixed, two workloads.
    fn base_and_fixed() -> Matrix {
        let tree = TreeEntry {
            spec: "debian:mariadb=1:10.11.18-0+deb12u1".parse().unwrap(),
            name: None,
            variants: vec!["base".into(), "fixed".into()],
        };
        Matrix::new(
            "x",
            vec![tree],
            vec![
                Workload::new("points-covered-pk"),
                Workload::new("read-only"),
            ],
        )
    }

    #[test]
    fn a_fresh_server_runs_one_workload_with_every_variant_back_to_back() {
        let mut m = base_and_fixed();
        let cells = [(0, 1), (1, 1), (0, 2)];
        // shared: each unit runs every cell on one server
        assert_eq!(
            server_groups(&m, &[1, 0], &cells),
            [(1, cells.to_vec()), (0, cells.to_vec())]
        );
        // fresh: a server per (workload, unit), its thread counts together,
        // the units of one workload back to back in the rotation's order
        m.fresh_server = true;
        assert_eq!(
            server_groups(&m, &[1, 0], &cells),
            [
                (1, vec![(0, 1), (0, 2)]),
                (0, vec![(0, 1), (0, 2)]),
                (1, vec![(1, 1)]),
                (0, vec![(1, 1)]),
            ]
        );
        assert_eq!(
            server_name("10.11.18", "fixed", 3, Some("read-only")),
            "10.11.18-fixed-rep3-read-only"
        );
        let d = describe(&m);
        assert!(
            d.contains("fresh_server") && d.contains("datadir on tmpfs"),
            "{d}"
        );
        // a server per (repetition, workload, variant)
        assert!(d.contains("2 builds, 12 server starts,"), "{d}");
        let from_file: Matrix = toml::from_str(
            "name = \"x\"\ndatadir = \"disk\"\nfresh_server = true\n\
             [[tree]]\nspec = \"path:/x\"\nvariants = [\"base\"]\n\
             [[workload]]\nname = \"read-only\"\n",
        )
        .unwrap();
        assert_eq!(from_file.datadir, crate::dims::Datadir::Disk);
        assert!(from_file.fresh_server);
        let err = toml::from_str::<Matrix>("name = \"x\"\ndatadir = \"nvme\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2") && err.contains("tmpfs"), "{err}");
    }

    #[test]
    fn a_cost_server_follows_each_costed_server_of_the_first_passes() {
        let mut m = base_and_fixed();
        m.repetitions = 3;
        m.cost_passes = 2;
        let label = |plan: &Plan| {
            let units = plan.units.clone();
            move |u: usize| run_label(&units[u].variant, units[u].again)
        };
        let plan = Plan::of(&m);
        // 2 variants in each of the first 2 repetitions
        assert_eq!(cost_servers(&m, &plan, label(&plan)), 4);
        assert!(m.cost_server_after(2, "base") && !m.cost_server_after(3, "base"));
        m.cost_variants = vec!["fixed".into()];
        assert_eq!(cost_servers(&m, &plan, label(&plan)), 2);
        // a server per workload: one cost server after each
        m.fresh_server = true;
        let plan = Plan::of(&m);
        assert_eq!(cost_servers(&m, &plan, label(&plan)), 4);
        assert!(describe(&m).contains("(4 in all)"), "{}", describe(&m));
    }

    #[test]
    fn every_shipped_matrix_dry_runs() {
        for file in [
            "smoke.toml",
            "mdev-37992.toml",
            "release-11.8.10.toml",
            "mechanism-mysql-9.7.toml",
        ] {
            let m =
                crate::matrix::load(&crate::util::repo_root().join("matrix").join(file)).unwrap();
            let d = describe(&m);
            let plan = Plan::of(&m);
            assert!(
                d.contains(&format!("{} cell run", plan.total_cells())),
                "{file}:\n{d}"
            );
            for q in &m.questions {
                assert!(
                    d.contains(&format!("  {}: ", q.name)),
                    "{file}: {}\n{d}",
                    q.name
                );
            }
        }
        let m = crate::matrix::load(&crate::util::repo_root().join("matrix/release-11.8.10.toml"))
            .unwrap();
        let d = describe(&m);
        // nothing fetched: the series comes from the tags
        assert!(
            d.contains("mariadb-11.8.10 (series 11.8, from the spec)"),
            "{d}"
        );
        assert!(
            d.contains("11.8.10 base-again read-write 2 threads x5"),
            "{d}"
        );
        assert_eq!(Plan::of(&m).cells.len(), 15, "all of Mark's workloads");
        // and the engine from the source package's name
        let m =
            crate::matrix::load(&crate::util::repo_root().join("matrix/mechanism-mysql-9.7.toml"))
                .unwrap();
        let d = describe(&m);
        assert!(
            d.contains("debian:mysql-9.7=9.7.2-4 (series mysql-9.7, from the spec)"),
            "{d}"
        );
    }

    #[test]
    fn the_control_runs_twice_and_repetitions_rotate() {
        let mut m = Matrix::new(
            "x",
            vec![TreeEntry {
                spec: "path:/x".parse().unwrap(),
                name: Some("t".into()),
                variants: vec!["base".into(), "gate".into()],
            }],
            vec![Workload::new("points-covered-pk")],
        );
        m.control = Some("base".into());
        let p = Plan::of(&m);
        let labels: Vec<String> = p
            .units
            .iter()
            .map(|u| run_label(&u.variant, u.again))
            .collect();
        assert_eq!(labels, ["base", "base-again", "gate"]);
        assert_eq!(p.rotation(1), [0, 1, 2]);
        assert_eq!(p.rotation(2), [1, 2, 0]);
        assert_eq!(p.rotation(4), [0, 1, 2]);
        assert_eq!(p.total_cells(), 9);
        let d = describe(&m);
        assert!(
            d.contains("t base-again points-covered-pk 2 threads x3"),
            "{d}"
        );
        assert!(d.contains("2 builds, 9 server starts, 9 cell runs"), "{d}");
    }
}
