//! The reproduction section of a report: host, tool revision, command,
//! workloads, trees with their builds, patches and cmake options, the
//! my.cnf (the first variant's in full, the others' by their changed
//! lines) and the sysbench command lines.

use super::doc::Block;
use crate::decide::analysis::Analysis;
use crate::dims::CnfBase;
use crate::record::RunResult;
use crate::util::slug;

/// What it takes to reproduce the numbers: trees, builds, patches, cmake
/// options, my.cnf, sysbench command lines, host and tool revision.
pub(super) fn blocks(a: &Analysis, b: &mut Vec<Block>) {
    let results = a.results;
    b.push(Block::Heading(2, "Reproduction".into()));
    let first = &results[0];
    b.push(Block::Bullets(vec![
        format!(
            "host: `{}`: {} cores, {} bytes of memory, {}, Linux {}{}",
            first.host.hostname,
            first.host.cores,
            first.host.memory_bytes,
            first.host.cpu_model,
            first.host.kernel,
            datadir_words(results)
        ),
        format!("innodb-lab revision: `{}`", first.tool_revision),
        match &a.manifest.file {
            Some(f) => format!("command: `cargo xtask matrix {f}`"),
            None => format!(
                "command: `cargo xtask matrix` with the file of matrix `{}`",
                a.manifest.name
            ),
        },
    ]));
    b.push(Block::Bullets(workloads(a)));
    for tree in &a.manifest.trees {
        tree_blocks(a, tree, b);
    }
    sysbench_commands(a, b);
}

/// One bullet per workload, in the matrix's order: its kind, its data,
/// its threads and rate, and how long each pass ran.
fn workloads(a: &Analysis) -> Vec<String> {
    let results = a.results;
    let mut workloads = Vec::new();
    for name in &a.manifest.workloads {
        if let Some(r) = results.iter().find(|r| &r.key.workload == name) {
            let w = &r.workload_def;
            if w.kind()
                .is_ok_and(|k| k == crate::dims::WorkloadKind::ScanLoop)
            {
                workloads.push(format!(
                    "workload `{}` (scan-loop): hot table {} rows, scanned table {} rows, {} hot \
                     lookup thread(s) and {} scanning, {}; warm-up {} s, \
                     residency pass {} s sampled every {} s, measured {} s (not sampled)",
                    w.name,
                    w.hot_rows,
                    w.scan_rows,
                    w.threads,
                    w.scan_threads,
                    if w.rate == 0 {
                        "events as fast as they go".to_string()
                    } else {
                        format!("at most {} events a second", w.rate)
                    },
                    w.warmup_seconds,
                    w.residency_seconds,
                    w.sample_seconds,
                    w.measure_seconds
                ));
                continue;
            }
            workloads.push(format!(
                "workload `{}` ({}): {} tables x {} rows, threads {}{}, {} ids per IN-list, range size {}; \
                 arming {} s, warm-up {} s (not measured), measured {} s, diagnostic pass {} s",
                w.name,
                w.kind().map(|k| k.to_string()).unwrap_or_else(|_| "?".into()),
                w.tables,
                w.table_size,
                w.threads,
                if w.rate > 0 {
                    format!(" at most {} events a second (sysbench --rate)", w.rate)
                } else {
                    String::new()
                },
                w.random_points,
                w.range_size,
                w.arm_seconds,
                w.warmup_seconds,
                w.measure_seconds,
                w.diagnostic_seconds
            ));
        }
    }
    workloads
}

/// A tree's facts: its id, each variant's build, patch and settings, the
/// cmake options, the scaled my.cnf settings and each variant's my.cnf.
fn tree_blocks(a: &Analysis, tree: &str, b: &mut Vec<Block>) {
    let results = a.results;
    let tree_runs: Vec<&RunResult> = results.iter().filter(|r| r.key.tree == tree).collect();
    let Some(t) = tree_runs.iter().find_map(|r| r.tree_info.as_ref()) else {
        return;
    };
    b.push(Block::Heading(
        3,
        format!("Tree `{tree}`: {} `{}`", t.version, t.spec),
    ));
    let mut facts = vec![format!("id: `{}`", t.id)];
    for variant in &a.manifest.variants {
        let Some(v) = tree_runs.iter().find(|r| &r.key.variant == variant) else {
            continue;
        };
        let mut what = Vec::new();
        if let Some(build) = &v.build {
            what.push(format!("build `{}`", build.key_hash));
            if let Some(p) = &build.patch {
                what.push(format!(
                    "patch `{}` (sha256 `{}`)",
                    p.file.display(),
                    p.sha256
                ));
            }
            if let Some(c) = &build.cherry_pick {
                what.push(format!(
                    "cherry-picked {} from {}",
                    c.commits.join(", "),
                    c.remote
                ));
            }
        } else if matches!(t.kind(), crate::record::TreeKind::Packaged { .. }) {
            what.push("packaged binary".to_string());
        }
        for (k, val) in &v.variant_settings {
            what.push(format!("`{k}={val}`"));
        }
        facts.push(format!("variant `{variant}`: {}", what.join("; ")));
    }
    b.push(Block::Bullets(facts));
    if let Some(build) = tree_runs.iter().find_map(|r| r.build.as_ref()) {
        b.push(Block::Para(format!(
            "cmake options (compiler {}):",
            build.key.compiler
        )));
        b.push(Block::Attached {
            file: format!("cmake-{}.txt", slug(tree)),
            text: build.key.cmake_options.join(" \\\n  "),
        });
    }
    if let Some(cnf) = tree_runs.iter().find_map(|r| r.my_cnf.as_ref()) {
        // one item with the scaled settings nested under it
        let mut scaled = match cnf.base {
            CnfBase::Mark => format!(
                "my.cnf: Mark Callaghan's z12 settings for series {}, scaled to this host:",
                t.series
            ),
            CnfBase::Defaults => format!(
                "my.cnf: the server's own defaults (series {}), the variants' settings and \
                 what the datadir's filesystem needs:",
                t.series
            ),
        };
        for s in &cnf.scaled {
            scaled.push_str(&format!(
                "\n- `{}` = {} (Mark: {}): {}",
                s.name, s.here, s.mark, s.why
            ));
        }
        b.push(Block::Bullets(vec![scaled]));
    }
    // the first variant's my.cnf in full, then each other variant's
    // differences from it; the Jira comment names them as attachments
    let mut first: Option<(String, String)> = None;
    for variant in &a.manifest.variants {
        let Some(text) = tree_runs
            .iter()
            .filter(|r| &r.key.variant == variant)
            .find_map(|r| r.my_cnf_text.as_deref())
        else {
            continue;
        };
        let text = strip_run_paths(text);
        match &first {
            None => {
                b.push(Block::Para(format!(
                    "my.cnf of `{variant}` (run paths shown as <run>):"
                )));
                b.push(Block::Attached {
                    file: format!("my-{}-{}.cnf", slug(tree), slug(variant)),
                    text: text.clone(),
                });
                first = Some((variant.clone(), text));
            }
            Some((base, base_text)) => {
                let changed = changed_lines(base_text, &text);
                if changed.is_empty() {
                    b.push(Block::Para(format!(
                        "my.cnf of `{variant}`: the same as `{base}`'s."
                    )));
                } else {
                    b.push(Block::Para(format!(
                        "my.cnf of `{variant}`: `{base}`'s with these lines changed (- `{base}`'s, + `{variant}`'s):"
                    )));
                    b.push(Block::Attached {
                        file: format!("my-{}-{}.diff", slug(tree), slug(variant)),
                        text: changed.join("\n"),
                    });
                }
            }
        }
    }
}

/// The sysbench command lines, one set per workload.
fn sysbench_commands(a: &Analysis, b: &mut Vec<Block>) {
    let results = a.results;
    let mut commands = Vec::new();
    for name in &a.manifest.workloads {
        if let Some(o) = results
            .iter()
            .filter(|r| &r.key.workload == name)
            .find_map(|r| r.outcome.as_ref())
        {
            commands.extend(o.sysbench_commands.iter().map(|c| strip_run_paths(c)));
        }
    }
    if !commands.is_empty() {
        b.push(Block::Para(
            "sysbench command lines (a line with `--time={a,b,...}` stands for one run per value, in \
             that order):"
                .into(),
        ));
        b.push(Block::Attached {
            file: "sysbench-commands.txt".into(),
            text: collapse_times(&commands).join("\n"),
        });
    }
}

/// Commands that differ only in `--time=N` (a workload's warm-up,
/// measured run and diagnostic pass), as one line with `--time={a,b,c}`,
/// where the first of them stood.
fn collapse_times(commands: &[String]) -> Vec<String> {
    let split = |c: &str| -> Option<(String, String)> {
        let start = c.find("--time=")? + "--time=".len();
        let len = c[start..]
            .find(|ch: char| !ch.is_ascii_digit())
            .unwrap_or(c.len() - start);
        let key = format!("{}{{}}{}", &c[..start], &c[start + len..]);
        Some((key, c[start..start + len].to_string()))
    };
    let mut out: Vec<(Option<String>, Vec<String>, String)> = Vec::new();
    for c in commands {
        match split(c) {
            Some((key, time)) => match out.iter_mut().find(|(k, _, _)| k.as_ref() == Some(&key)) {
                Some((_, times, _)) => times.push(time),
                None => out.push((Some(key), vec![time], c.clone())),
            },
            None => out.push((None, Vec::new(), c.clone())),
        }
    }
    out.into_iter()
        .map(|(key, times, first)| match key {
            Some(k) if times.len() > 1 => k.replacen("{}", &format!("{{{}}}", times.join(",")), 1),
            _ => first,
        })
        .collect()
}

/// The lines of `other` that `base` lacks (`+ `) and those of `base`
/// that `other` lacks (`- `), each in its file's order, removals first:
/// a my.cnf is a list of settings, so which lines differ is what matters.
fn changed_lines(base: &str, other: &str) -> Vec<String> {
    let missing_from = |from: &str, of: &str| -> Vec<String> {
        let mut pool: Vec<&str> = from.lines().collect();
        of.lines()
            .filter(|line| match pool.iter().position(|p| p == line) {
                Some(i) => {
                    pool.remove(i);
                    false
                }
                None => true,
            })
            .map(String::from)
            .collect()
    };
    let removed = missing_from(other, base);
    let added = missing_from(base, other);
    removed
        .into_iter()
        .map(|l| format!("- {l}"))
        .chain(added.into_iter().map(|l| format!("+ {l}")))
        .collect()
}

/// Run directories (`/dev/shm/innodb-lab/<run>/`) differ between runs;
/// the rest of a my.cnf or command line does not.
fn strip_run_paths(text: &str) -> String {
    const SHM: &str = "/dev/shm/innodb-lab/";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(SHM) {
        out.push_str(&rest[..i]);
        out.push_str("<run>");
        let after = &rest[i + SHM.len()..];
        // the run directory's name ends at the next separator
        let end = after
            .find(|c: char| c == '/' || c.is_whitespace())
            .unwrap_or(after.len());
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// `; datadir on tmpfs` (or disk, or how many runs each) for the host
/// line, as each run's my.cnf records it; nothing when no run recorded it.
/// Kept short: it sits in reports near Jira's comment limit.
fn datadir_words(results: &[RunResult]) -> String {
    let on_tmpfs: Vec<Option<bool>> = results
        .iter()
        .map(|r| r.my_cnf.as_ref().and_then(|c| c.datadir_on_tmpfs))
        .collect();
    let count = |want: Option<bool>| on_tmpfs.iter().filter(|t| **t == want).count();
    let (tmpfs, disk) = (count(Some(true)), count(Some(false)));
    if tmpfs == on_tmpfs.len() {
        "; datadir on tmpfs".into()
    } else if disk == on_tmpfs.len() {
        "; datadir on disk".into()
    } else if tmpfs + disk == 0 {
        String::new()
    } else {
        format!(
            "; datadir on tmpfs in {tmpfs} run(s), on disk in {disk}, not recorded in {}",
            on_tmpfs.len() - tmpfs - disk
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_that_differ_in_their_time_only_are_one_line() {
        let c = |t: u32, script: &str| {
            format!("sysbench {script}.lua --threads=2 --time={t} --events=0 run")
        };
        let commands = [
            c(2, "a"),
            c(6, "a"),
            c(3, "a"),
            c(2, "b"),
            "sysbench b.lua prepare".into(),
        ];
        assert_eq!(
            collapse_times(&commands),
            [
                "sysbench a.lua --threads=2 --time={2,6,3} --events=0 run",
                "sysbench b.lua --threads=2 --time=2 --events=0 run",
                "sysbench b.lua prepare"
            ]
        );
    }

    #[test]
    fn a_variants_my_cnf_is_shown_by_its_changed_lines() {
        let base = "[mysqld]\ninnodb_buffer_pool_size=1G\nlc_messages_dir=/b/1/share\n";
        let other = "[mysqld]\ninnodb_buffer_pool_size=1G\ninnodb_old_blocks_time=1000\nlc_messages_dir=/b/2/share\n";
        assert_eq!(
            changed_lines(base, other),
            [
                "- lc_messages_dir=/b/1/share",
                "+ innodb_old_blocks_time=1000",
                "+ lc_messages_dir=/b/2/share"
            ]
        );
        assert!(changed_lines(base, base).is_empty());
        // a repeated line counts as often as it stands
        assert_eq!(changed_lines("a\na\n", "a\n"), ["- a"]);
    }
}
