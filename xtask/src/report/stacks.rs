//! The stacks behind the numbers: for every cell with a profile pass, what
//! share of its samples the LRU promotion (`buf_page_make_young`) took and
//! from where it was called, how much each profiler slowed the server, the
//! frames whose share moved most against the tree's baseline, and the
//! most common thread stacks gdb saw. Flame graphs (one per profile, and
//! the differential one against the baseline) are drawn here from the
//! folded files; `stacks.md` and `stacks.jira` carry the detail, with
//! the files to attach to a ticket.

use super::doc::Block;
use crate::decide::analysis::Analysis;
use crate::record::{frame_is, FoldedStacks, ProfilePass, Profiler};
use anyhow::Result;
use serde::{Deserialize, Serialize};

/// The promotion that takes buf_pool.mutex on an access in the trees
/// before the fix (10.5 to 11.8.9): its share of the samples is the
/// mechanism seen from the stacks.
pub const PROMOTION: &str = "buf_page_make_young";

/// The whole promotion path: the check on an access that decides to
/// promote, and the promotion under it. 10.5 inlines the check, so there
/// the path is the promotion alone; in 10.11 and 11.8 the check is a
/// function of its own and costs as much as the move it guards.
pub const PROMOTION_PATH: [&str; 2] = ["buf_page_make_young_if_needed", PROMOTION];

/// Parts of the frames of a thread that sleeps on a lock: glibc's mutex
/// wait and the futex under it, under whichever alias the symbols give
/// (`__lll_lock_wait`, `__GI___lll_lock_wait`, `futex_wait`).
const LOCK_WAITS: [&str; 2] = ["lll_lock_wait", "futex_wait"];

fn is_lock_wait(frame: &str) -> bool {
    LOCK_WAITS.iter().any(|w| frame.contains(w))
}

/// How many frames the tables of changes and stacks list (a matrix's
/// stacks.jira must stay one Jira comment).
const CHANGES: usize = 6;
const TOP_STACKS: usize = 2;
/// Frames of a top stack shown, innermost first.
const STACK_FRAMES: usize = 6;

/// One profile of one cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StackRow {
    pub tree: String,
    pub workload: String,
    pub threads: u32,
    pub variant: String,
    pub profiler: Profiler,
    /// each window of the pass, and the whole pass (its three windows,
    /// gdb's start and the folding), in seconds
    pub window_seconds: u64,
    pub pass_seconds: f64,
    /// samples (on-CPU) or thread stacks (gdb) folded
    pub samples: u64,
    /// on-CPU: the sampling event, and whether it is a hardware counter
    pub event: Option<String>,
    /// QPS under the profiler against the pass's reference window, in %
    pub qps_change_pct: Option<f64>,
    /// gdb: median and longest stop of the server per sample, in ms
    pub stop_ms_median: Option<f64>,
    pub stop_ms_max: Option<f64>,
    /// share (0 to 1) of the samples with `buf_page_make_young` in the stack
    pub promotion_share: Option<f64>,
    /// share of the samples with a frame of [`PROMOTION_PATH`] in the stack
    #[serde(default)]
    pub promotion_path_share: Option<f64>,
    /// share of the samples asleep on a lock inside `buf_page_make_young`
    pub promotion_lock_wait_share: Option<f64>,
    /// the two frames above `buf_page_make_young` (caller's caller;caller)
    /// and their share, largest first
    pub promotion_callers: Vec<(String, f64)>,
    /// share of the samples whose innermost frame has no name: symbols missing
    pub unnamed_leaf_share: Option<f64>,
    /// share of the samples whose stack stops before the thread's start
    #[serde(default)]
    pub cut_short_share: Option<f64>,
    pub folded: String,
    pub flame_graph: String,
    /// the baseline this profile is held against (absent for the baseline)
    pub against: Option<String>,
    pub differential: Option<String>,
    /// on-CPU: the frames whose self share moved most from the baseline's profile
    pub largest_changes: Vec<ChangeRow>,
    /// gdb: the most common thread stacks, innermost frame first
    pub top_stacks: Vec<(String, u64)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChangeRow {
    pub frame: String,
    pub baseline_share: f64,
    pub share: f64,
}

/// The file of the flame graph drawn from `folded`.
fn svg_name(folded: &str) -> String {
    format!("{}.svg", folded.trim_end_matches(".folded"))
}

/// Every profile of the analysis, in report order (tree, workload,
/// threads, variant with its baseline first), on-CPU before gdb.
pub fn rows(a: &Analysis) -> Vec<StackRow> {
    let mut rows = Vec::new();
    for c in &a.cells {
        let Some((pass, _)) = profiled(a, &c.cell) else {
            continue;
        };
        let baseline = a
            .baseline_of(&c.cell)
            .filter(|b| b.cell != c.cell)
            .and_then(|b| Some((b.cell.variant.clone(), profiled(a, &b.cell)?.0)));
        for profiler in Profiler::ALL {
            let Some(file) = pass.folded(profiler) else {
                continue;
            };
            let Some(stacks) = a.stacks.get(file) else {
                continue;
            };
            let base = baseline.as_ref().and_then(|(variant, base_pass)| {
                let f = base_pass.folded(profiler)?;
                Some((variant.clone(), a.stacks.get(f)?))
            });
            rows.push(row(c, pass, profiler, file, stacks, base));
        }
    }
    rows
}

/// The profile pass of a cell: of its first repetition that has one.
fn profiled<'a>(a: &'a Analysis, cell: &crate::record::Cell) -> Option<(&'a ProfilePass, u32)> {
    let c = a.cell(cell)?;
    c.all()
        .filter_map(|r| Some((r.outcome.as_ref()?.profile.as_ref()?, r.key.repetition)))
        .min_by_key(|(_, rep)| *rep)
}

fn row(
    c: &crate::decide::analysis::CellRuns,
    pass: &ProfilePass,
    profiler: Profiler,
    file: &str,
    stacks: &FoldedStacks,
    base: Option<(String, &FoldedStacks)>,
) -> StackRow {
    let event = match profiler {
        Profiler::OnCpu => pass.on_cpu.as_ref().map(|p| p.event.clone()),
        Profiler::Waits => None,
    };
    let stops = pass.waits.as_ref().map(|w| {
        let mut s: Vec<f64> = w
            .stops_ms
            .iter()
            .copied()
            .filter(|x| x.is_finite())
            .collect();
        s.sort_by(f64::total_cmp);
        s
    });
    let stops = stops.filter(|s| !s.is_empty() && profiler == Profiler::Waits);
    let lock_wait = stacks.share_where(|frames| {
        frames
            .iter()
            .position(|f| frame_is(f, PROMOTION))
            .is_some_and(|i| frames[i + 1..].iter().any(|f| is_lock_wait(f)))
    });
    let mut row = StackRow {
        tree: c.cell.tree.clone(),
        workload: c.cell.workload.clone(),
        threads: c.cell.threads,
        variant: c.cell.variant.clone(),
        profiler,
        window_seconds: pass.window_seconds,
        pass_seconds: pass.wall_seconds,
        samples: stacks.total(),
        event,
        qps_change_pct: pass.change_pct(profiler),
        stop_ms_median: stops
            .as_ref()
            .and_then(|s| crate::decide::analysis::median(s)),
        stop_ms_max: stops.as_ref().and_then(|s| s.last().copied()),
        promotion_share: stacks.share_of(PROMOTION),
        promotion_path_share: stacks.share_where(|frames| {
            frames
                .iter()
                .any(|f| PROMOTION_PATH.iter().any(|p| frame_is(f, p)))
        }),
        promotion_lock_wait_share: lock_wait,
        promotion_callers: callers(stacks, PROMOTION),
        unnamed_leaf_share: stacks.unnamed_leaf_share(),
        cut_short_share: stacks.cut_short_share(),
        folded: file.to_string(),
        flame_graph: svg_name(file),
        against: None,
        differential: None,
        largest_changes: Vec::new(),
        top_stacks: Vec::new(),
    };
    if profiler == Profiler::Waits {
        row.top_stacks = stacks
            .top_stacks(TOP_STACKS)
            .into_iter()
            .map(|(frames, n)| {
                let inner: Vec<&str> = frames.iter().rev().take(STACK_FRAMES).copied().collect();
                (inner.join(" < "), n)
            })
            .collect();
    }
    if let Some((variant, base_stacks)) = base {
        row.differential = Some(format!(
            "{}.against-{}.svg",
            file.trim_end_matches(".folded"),
            crate::util::slug(&variant)
        ));
        // gdb's shares are mostly idle threads: its changes say little
        if profiler == Profiler::OnCpu {
            row.largest_changes = stacks
                .largest_changes(base_stacks, CHANGES)
                .into_iter()
                .map(|ch| ChangeRow {
                    frame: ch.frame,
                    baseline_share: ch.before,
                    share: ch.after,
                })
                .collect();
        }
        row.against = Some(variant);
    }
    row
}

/// Where `name` was called from: the two frames above it, with the share
/// of the samples that had that pair, largest first.
fn callers(stacks: &FoldedStacks, name: &str) -> Vec<(String, f64)> {
    let total = stacks.total().max(1) as f64;
    let mut by: std::collections::BTreeMap<String, u64> = Default::default();
    for (frames, n) in stacks.iter() {
        if let Some(i) = frames.iter().position(|f| frame_is(f, name)) {
            let from = frames[i.saturating_sub(2)..i].join(" > ");
            *by.entry(from).or_default() += n;
        }
    }
    let mut list: Vec<(String, f64)> = by.into_iter().map(|(k, n)| (k, n as f64 / total)).collect();
    list.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    list.truncate(3);
    list
}

/// The flame graphs of `rows`: (file, svg), each profile's and each
/// differential one.
pub fn flame_graphs(a: &Analysis, rows: &[StackRow]) -> Result<Vec<(String, String)>> {
    let mut files = Vec::new();
    for r in rows {
        let Some(stacks) = a.stacks.get(&r.folded).filter(|s| !s.is_empty()) else {
            continue;
        };
        let what = match r.profiler {
            Profiler::OnCpu => "on-CPU samples",
            Profiler::Waits => "thread stacks",
        };
        let title = format!(
            "{} {} {} ({})",
            r.tree,
            r.variant,
            r.workload,
            r.profiler.title()
        );
        let text = stacks.to_text();
        files.push((
            r.flame_graph.clone(),
            crate::flame::graph(&text, &title, &format!("{} threads", r.threads), what)?,
        ));
        let (Some(diff), Some(against)) = (&r.differential, &r.against) else {
            continue;
        };
        let base = rows
            .iter()
            .find(|b| {
                b.tree == r.tree
                    && b.workload == r.workload
                    && b.threads == r.threads
                    && &b.variant == against
                    && b.profiler == r.profiler
            })
            .and_then(|b| a.stacks.get(&b.folded));
        if let Some(base) = base {
            let title = format!(
                "{} {} against {}: {}",
                r.tree, r.variant, against, r.workload
            );
            files.push((
                diff.clone(),
                crate::flame::differential(
                    &base.to_text(),
                    &text,
                    &format!("{title} ({}'s stacks)", r.variant),
                    "red: a larger share than in the baseline, blue: a smaller one",
                )?,
            ));
            files.push((
                on_baseline(diff),
                crate::flame::differential_on_before(
                    &base.to_text(),
                    &text,
                    &format!("{title} ({against}'s stacks)"),
                    "blue: a smaller share than in the baseline, or gone; red: a larger one",
                )?,
            ));
        }
    }
    Ok(files)
}

/// The differential flame graph drawn on the baseline's stacks, beside
/// `differential` (drawn on the variant's): where the frames the variant
/// no longer runs appear.
pub fn on_baseline(differential: &str) -> String {
    format!("{}.on-baseline.svg", differential.trim_end_matches(".svg"))
}

fn pct(x: Option<f64>) -> String {
    x.map(|v| format!("{:.2}%", 100.0 * v))
        .unwrap_or_else(|| "n/a".into())
}

/// The sentence report.md and report.jira carry, pointing at the detail.
pub fn pointer(rows: &[StackRow]) -> Option<Block> {
    (!rows.is_empty()).then(|| {
        Block::Para(format!(
            "Stacks (perf and gdb, {} profiles): `stacks.md`, and `stacks.jira` as a second comment.",
            rows.len()
        ))
    })
}

/// The summary table: the promotion's share of each profile.
pub fn blocks(rows: &[StackRow], heading_level: u8) -> Vec<Block> {
    if rows.is_empty() {
        return Vec::new();
    }
    let mut b = vec![Block::Heading(heading_level, "Stacks".into())];
    let (shortest, longest) = rows.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), r| {
        (lo.min(r.pass_seconds), hi.max(r.pass_seconds))
    });
    let mut windows: Vec<u64> = rows.iter().map(|r| r.window_seconds).collect();
    windows.sort_unstable();
    windows.dedup();
    b.push(Block::Para(format!(
        "Windows of {} s; a whole pass took {shortest:.0} to {longest:.0} s (its three windows, \
         gdb reading the server's symbols before the load, and the folding after it), once per \
         cell.",
        windows
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    )));
    b.push(Block::Para(format!(
        "Each profiled cell ran one more load after its diagnostic pass, never measured, with three \
         windows: no profiler (the reference rate), `perf record -g` (on-CPU stacks, DWARF \
         unwinding), then the Poor Man's Profiler (gdb attaches, takes a backtrace of every \
         thread, detaches; the samples are spread over the window, which runs longer when the \
         stops add up to more than it). \"QPS under the \
         profiler\" is the server's `Queries` rate in that window against the reference window. \
         `{PROMOTION}` is the promotion that takes buf_pool.mutex on an access before the fix; its \
         share counts the samples with it anywhere in the stack, \"promotion path\" those with it \
         or the check that calls it (`{}`, a function of its own in 10.11 and 11.8, inlined in \
         10.5), \"asleep on the lock\" those with a lock wait (`__lll_lock_wait`, a futex wait) \
         inside it; \"stack cut short\" is the share of samples the unwinder did not follow up \
         to the thread's start, which a share counted over callers misses. On a host with few \
         cores the mutex is seldom contended (the report's buf_pool.mutex wait per query says \
         how little), so gdb rarely finds a thread asleep there: the contention needs many \
         cores, the on-CPU share shows the work.",
        PROMOTION_PATH[0]
    )));
    b.push(profiles_table(rows));
    if rows
        .iter()
        .any(|r| r.profiler == Profiler::OnCpu && r.cut_short_share.is_some_and(|s| s > 0.02))
    {
        b.push(Block::Para(
            "**Stacks cut short**: a perf profile above has more than 2% of its samples whose \
             stack perf did not unwind up to the thread's start (DWARF unwinding from a copy of \
             too little of the stack); the promotion's shares there count only the samples that \
             reach it."
                .into(),
        ));
    }
    if rows
        .iter()
        .any(|r| r.unnamed_leaf_share.is_some_and(|s| s > 0.2))
    {
        b.push(Block::Para(
            "**Symbols missing**: a profile above has more than 20% of its samples without a \
             function name at the leaf; a packaged server needs its debug symbols package \
             (`mariadb-server-core-dbgsym`) for its stacks to be read."
                .into(),
        ));
    }
    b
}

/// One row per profile: its profiler, samples, the rate under it, the
/// promotion's share and callers, and the samples with no symbol.
fn profiles_table(rows: &[StackRow]) -> Block {
    Block::Table {
        header: [
            "tree",
            "workload",
            "variant",
            "profiler",
            "samples",
            "QPS under the profiler",
            PROMOTION,
            "promotion path",
            "asleep on the lock",
            "called from (share)",
            "no symbol at the leaf",
            "stack cut short",
        ]
        .map(String::from)
        .to_vec(),
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    r.tree.clone(),
                    format!("{} ({}t)", r.workload, r.threads),
                    r.variant.clone(),
                    match (&r.event, r.profiler) {
                        (Some(e), Profiler::OnCpu) => format!("perf, {e}"),
                        _ => format!(
                            "gdb, stops {} ms (longest {})",
                            super::words::num(r.stop_ms_median, 0),
                            super::words::num(r.stop_ms_max, 0)
                        ),
                    },
                    r.samples.to_string(),
                    r.qps_change_pct
                        .map(|x| format!("{x:+.1}%"))
                        .unwrap_or_else(|| "n/a".into()),
                    pct(r.promotion_share),
                    pct(r.promotion_path_share),
                    // a CPU sample is never asleep
                    match r.profiler {
                        Profiler::OnCpu => "-".into(),
                        Profiler::Waits => pct(r.promotion_lock_wait_share),
                    },
                    if r.promotion_callers.is_empty() {
                        "-".into()
                    } else {
                        r.promotion_callers
                            .iter()
                            .map(|(from, s)| format!("`{from}` ({:.2}%)", 100.0 * s))
                            .collect::<Vec<_>>()
                            .join("; ")
                    },
                    pct(r.unnamed_leaf_share),
                    pct(r.cut_short_share),
                ]
            })
            .collect(),
    }
}

/// `stacks.md` / `stacks.jira`: the summary, then per profile its changes
/// against the baseline, gdb's top stacks and the files to attach.
pub fn detail(title: &str, rows: &[StackRow]) -> Vec<Block> {
    let mut b = vec![Block::Heading(1, format!("innodb-lab stacks: {title}"))];
    b.extend(blocks(rows, 2));
    b.push(Block::Heading(2, "Against the baseline".into()));
    for r in rows.iter().filter(|r| !r.largest_changes.is_empty()) {
        b.push(Block::Heading(
            3,
            format!(
                "{} {} {} ({}t), {}: frames whose self share moved most against {}",
                r.tree,
                r.variant,
                r.workload,
                r.threads,
                r.profiler.title(),
                r.against.as_deref().unwrap_or("")
            ),
        ));
        b.push(Block::Table {
            header: [
                "frame (self: the innermost)",
                "baseline",
                "this variant",
                "change",
            ]
            .map(String::from)
            .to_vec(),
            rows: r
                .largest_changes
                .iter()
                .map(|c| {
                    vec![
                        format!("`{}`", c.frame),
                        pct(Some(c.baseline_share)),
                        pct(Some(c.share)),
                        format!("{:+.2} points", 100.0 * (c.share - c.baseline_share)),
                    ]
                })
                .collect(),
        });
    }
    let waits: Vec<&StackRow> = rows.iter().filter(|r| !r.top_stacks.is_empty()).collect();
    if !waits.is_empty() {
        b.push(Block::Heading(
            2,
            "What the threads were doing (gdb)".into(),
        ));
        for r in waits {
            b.push(Block::Para(format!(
                "{} {} {} ({}t), the most common of {} thread stacks, innermost frame first \
                 (`??` alone: a thread gdb could not unwind from its first frame):",
                r.tree, r.variant, r.workload, r.threads, r.samples
            )));
            b.push(Block::Bullets(
                r.top_stacks
                    .iter()
                    .map(|(s, n)| format!("{n} x `{s}`"))
                    .collect(),
            ));
        }
    }
    b.push(Block::Heading(2, "Files to attach".into()));
    b.push(Block::Bullets(
        rows.iter()
            .map(|r| {
                [
                    Some(r.folded.clone()),
                    Some(r.flame_graph.clone()),
                    r.differential.clone(),
                    r.differential.as_deref().map(on_baseline),
                ]
                .into_iter()
                .flatten()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ")
            })
            .collect(),
    ));
    b.push(Block::Para(
        "The files are under `profiles/` in the results directory: `*.folded` are folded stacks \
         (one line per stack, frames from the outermost, then the count), `*.svg` flame graphs \
         drawn from them with inferno, `*.against-<baseline>.svg` differential flame graphs on the \
         variant's stacks and `*.against-<baseline>.on-baseline.svg` on the baseline's, where \
         the frames the variant no longer runs stand (in both, red where a frame's share grew \
         against the baseline, blue where it shrank or went)."
            .into(),
    ));
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_wait_is_known_by_any_of_glibcs_names() {
        assert!(is_lock_wait("__GI___lll_lock_wait"));
        assert!(is_lock_wait("futex_wait"));
        // a condition wait (an idle thread) is not a lock wait
        assert!(!is_lock_wait("__futex_abstimed_wait_common64"));
        assert!(!is_lock_wait("pthread_mutex_lock"));
    }

    #[test]
    fn callers_are_the_two_frames_above() {
        let s = FoldedStacks::parse(
            "t;a;b;buf_page_make_young;x 3\nt;c;buf_page_make_young 1\nt;d 4\n",
        )
        .unwrap();
        assert_eq!(
            callers(&s, PROMOTION),
            vec![("a > b".to_string(), 0.375), ("t > c".to_string(), 0.125)]
        );
        assert_eq!(svg_name("profiles/x.oncpu.folded"), "profiles/x.oncpu.svg");
    }
}
