//! Checks before the first build of a matrix: what it needs must be there
//! now, not be discovered missing after half an hour of building. Each
//! failure says what to install or to free.

use crate::dims;
use crate::host::Host;
use crate::matrix::Matrix;
use crate::tree::TreeSpec;
use crate::util::space::{free_bytes, human_bytes};
use anyhow::{bail, Result};
use std::path::PathBuf;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// The oldest sysbench whose Lua API and output our scripts and parser
/// are written for.
const SYSBENCH_MIN: (u32, u32) = (1, 0);

/// Every check; the errors of all failed checks at once.
pub fn check(matrix: &Matrix, keep: bool) -> Result<()> {
    let mut problems = Vec::new();
    if let Err(e) = sysbench() {
        problems.push(format!("{e:#}"));
    }
    if let Err(e) = crate::server::user::server_user() {
        problems.push(format!("{e:#}"));
    }
    let builds = builds_needed(matrix);
    if builds > 0 {
        for (tool, package) in [
            ("cmake", "cmake"),
            ("make", "make"),
            ("ccache", "ccache"),
            ("cc", "gcc"),
            ("c++", "g++"),
        ] {
            if find_in_path(tool).is_none() {
                problems.push(format!(
                    "`{tool}` is not installed (needed to build the trees): run \
                     tools/install-deps.sh, or apt-get install {package}"
                ));
            }
        }
    }
    if let Some(w) = matrix.workloads.iter().find(|w| w.profile_seconds > 0) {
        for (tool, package) in [("perf", "linux-perf"), ("gdb", "gdb")] {
            if find_in_path(tool).is_none() {
                problems.push(format!(
                    "`{tool}` is not installed (workload `{}` asks for a profile pass): run \
                     tools/install-deps.sh, or apt-get install {package}",
                    w.name
                ));
            }
        }
    }
    if matrix.cost_passes > 0 {
        for tool in ["valgrind", "vgdb"] {
            if find_in_path(tool).is_none() {
                problems.push(format!(
                    "`{tool}` is not installed (the matrix asks for cost passes under callgrind): \
                     run tools/install-deps.sh, or apt-get install valgrind"
                ));
            }
        }
    }
    let runs = crate::server::RunRoot::of(matrix.datadir);
    if let Err(e) = runs.check() {
        problems.push(format!("{e:#}"));
    }
    let need = shm_estimate(matrix, &Host::detect(), keep);
    if let Some(free) = free_bytes(&runs.path) {
        if free < need {
            problems.push(format!(
                "{} has {} free, the matrix needs about {} for its run directories \
                 (datadir, redo log, binlogs{}): free space there, or shrink tables/table_size",
                runs.path.display(),
                human_bytes(free),
                human_bytes(need),
                if keep {
                    ", every run kept by --keep"
                } else {
                    ""
                }
            ));
        }
    }
    if !problems.is_empty() {
        bail!(
            "preflight: the matrix cannot run on this host; nothing was built:\n  {}",
            problems.join("\n  ")
        );
    }
    Ok(())
}

/// Room in the cache for the builds the matrix still has to make, counted
/// once its trees are fetched and its variants resolved (so a build the
/// cache holds already costs nothing), before the first is started.
pub fn cache_space(builds: &[dims::Engine]) -> Result<()> {
    let cache = crate::util::cache_root();
    let builds_to_make = builds.len();
    let need: u64 = builds
        .iter()
        .map(|&e| crate::build::EngineBuild::of(e).cache_bytes)
        .sum();
    match free_bytes(&cache) {
        Some(free) if free < need => bail!(
            "preflight: {} has {} free, the {builds_to_make} build(s) this matrix still has to \
             make (the others are in the cache) need about {}: free space on that filesystem or \
             point INNODB_LAB_CACHE elsewhere; nothing was built",
            cache.display(),
            human_bytes(free),
            human_bytes(need)
        ),
        _ => Ok(()),
    }
}

/// sysbench is installed and recent enough.
fn sysbench() -> Result<()> {
    let out = crate::util::Command::new("sysbench")
        .arg("--version")
        .read()
        .map_err(|_| {
            anyhow::anyhow!(
                "sysbench is not installed: run tools/install-deps.sh, or apt-get install sysbench"
            )
        })?;
    match parse_sysbench_version(&out) {
        Some(v) if v >= SYSBENCH_MIN => Ok(()),
        Some(v) => bail!(
            "sysbench {}.{} is too old (at least {}.{}): apt-get install sysbench from Debian 11 or later",
            v.0,
            v.1,
            SYSBENCH_MIN.0,
            SYSBENCH_MIN.1
        ),
        None => bail!("cannot read sysbench's version from `{}`", out.trim()),
    }
}

fn parse_sysbench_version(out: &str) -> Option<(u32, u32)> {
    let v = out.split_whitespace().nth(1)?;
    let mut parts = v.split('.').map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??))
}

/// The builds a matrix asks for: every (tree, variant) that is not a
/// packaged server and not a settings-only variant (those share base's).
fn builds_needed(matrix: &Matrix) -> usize {
    let mut n = 0;
    for t in &matrix.trees {
        if matches!(t.spec, TreeSpec::Package { .. }) {
            continue;
        }
        let mut base_counted = false;
        for v in &t.variants {
            let settings_only = v == dims::BASE
                || matrix
                    .variants
                    .get(v)
                    .is_some_and(|d| d.patch.is_none() && d.cherry_pick.is_empty());
            if settings_only {
                if !base_counted {
                    n += 1;
                    base_counted = true;
                }
            } else {
                n += 1;
            }
        }
    }
    n
}

/// What the run directory of one server takes: ibdata1 (512M), the redo
/// log (1/16 of RAM, as `MyCnf` sizes it), 32 undo tablespaces, the
/// tables (about 400 bytes a row with the secondary index), binlogs of
/// writes (up to the tables' size again), and 10% on top.
pub fn shm_estimate(matrix: &Matrix, host: &Host, keep: bool) -> u64 {
    let redo = crate::record::MyCnf::redo_log_gib(host) * GIB;
    let per_server = |tables: u64, size: u64| {
        let data = tables * size * 400;
        let fixed = 512 * MIB + redo + 32 * 10 * MIB;
        (fixed + 2 * data) / 10 * 11
    };
    let w = &matrix.workloads[0];
    let one = per_server(w.tables as u64, w.table_size);
    if keep {
        let servers = matrix.trees.iter().map(|t| t.variants.len()).sum::<usize>() as u64
            * matrix.repetitions as u64;
        one * servers.max(1)
    } else {
        // one server at a time, its directory removed before the next
        one
    }
}

fn find_in_path(program: &str) -> Option<PathBuf> {
    crate::environment::current().find_program(program)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::TreeEntry;
    use crate::record::Workload;

    fn matrix(tables: u32, table_size: u64) -> Matrix {
        Matrix::new(
            "x",
            vec![TreeEntry {
                spec: "debian:mariadb=1:10.11.18-0+deb12u1".parse().unwrap(),
                name: None,
                variants: vec!["base".into(), "gate".into()],
            }],
            vec![Workload {
                tables,
                table_size,
                ..Workload::new("points-covered-pk")
            }],
        )
    }

    #[test]
    fn the_shm_estimate_follows_the_tables_and_the_redo_log() {
        let host = Host {
            hostname: "h".into(),
            cores: 2,
            memory_bytes: 24 * GIB,
            kernel: "6".into(),
            cpu_model: "x".into(),
        };
        let small = shm_estimate(&matrix(8, 100_000), &host, false);
        // 512M + 1G redo + 320M undo + 2 x 320M of rows, +10%
        assert_eq!(
            small,
            (512 * MIB + GIB + 320 * MIB + 2 * 320_000_000) / 10 * 11
        );
        let kept = shm_estimate(&matrix(8, 100_000), &host, true);
        assert_eq!(
            kept,
            small * 2 * 3,
            "two variants, three repetitions, all kept"
        );
        assert_eq!(builds_needed(&matrix(8, 100_000)), 2);
    }

    #[test]
    fn sysbench_versions() {
        assert_eq!(parse_sysbench_version("sysbench 1.0.20\n"), Some((1, 0)));
        assert_eq!(
            parse_sysbench_version("sysbench 1.1.0-df89d34\n"),
            Some((1, 1))
        );
        assert_eq!(parse_sysbench_version("nonsense"), None);
    }
}
