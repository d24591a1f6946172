//! What each traced server did to the pages it lost (`record::TraceStays`):
//! its misses of the measured run per 1000 page requests, charged to the
//! class of the page's last stay in the pool. Set beside each other, a
//! traced base and a traced remedy show in which class the remedy's extra
//! misses are. Pure: a function of the records.

use super::doc::Block;
use super::words::num;
use crate::decide::analysis::{Analysis, CellRuns};
use crate::record::{Cell, StayRow, TraceStays};
use serde::{Deserialize, Serialize};

/// One traced cell, summed over its counted runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StaysRow {
    #[serde(flatten)]
    pub cell: Cell,
    /// runs whose stays were counted
    pub runs: usize,
    /// page requests of the measured runs in the traces
    pub requests: u64,
    /// misses per 1000 requests
    pub misses_per_k: f64,
    /// misses of pages never held before, per 1000 requests
    pub first_reads_per_k: f64,
    /// per class, in the records' order
    pub classes: Vec<ClassShare>,
    /// moves to the LRU head per 1000 requests
    pub moves_per_k: f64,
    /// distinct pages moved, the median over the runs
    pub pages_moved: u64,
    /// the hit ratio on the trace by 2 s of the measured runs, pooled over
    /// the runs; None for an interval without a request
    pub hit_ratio_by_2s: Vec<Option<f64>>,
}

/// One class of stay in a [`StaysRow`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassShare {
    pub class: String,
    /// misses of a page whose last stay was of this class, per 1000 requests
    pub rereads_per_k: f64,
    /// evictions that ended a stay of this class, per 1000 requests
    pub evictions_per_k: f64,
}

fn traced<'a>(c: &'a CellRuns) -> Vec<&'a TraceStays> {
    c.counted
        .iter()
        .filter_map(|r| {
            let t = r.outcome.as_ref()?.page_trace.as_ref()?.replayed.as_ref()?;
            t.stays.as_ref()
        })
        .collect()
}

pub fn rows(a: &Analysis) -> Vec<StaysRow> {
    a.cells
        .iter()
        .filter_map(|c| row_of(&c.cell, &traced(c)))
        .collect()
}

/// A cell's runs summed; None without a request.
fn row_of(cell: &Cell, runs: &[&TraceStays]) -> Option<StaysRow> {
    let requests: u64 = runs.iter().map(|s| s.requests).sum();
    if requests == 0 {
        return None;
    }
    let per_k = |n: u64| 1000.0 * n as f64 / requests as f64;
    let sum_of = |class: &str, f: fn(&StayRow) -> u64| -> u64 {
        runs.iter()
            .flat_map(|s| s.classes.iter())
            .filter(|r| r.class == class)
            .map(f)
            .sum()
    };
    // the classes in the first run's order; every run has them all
    let classes = runs[0]
        .classes
        .iter()
        .map(|first| ClassShare {
            class: first.class.clone(),
            rereads_per_k: per_k(sum_of(&first.class, |r| r.rereads)),
            evictions_per_k: per_k(sum_of(&first.class, |r| r.evictions)),
        })
        .collect();
    let intervals = runs.iter().map(|s| s.by_2s.len()).max().unwrap_or(0);
    let mut pooled: Vec<(u64, u64)> = (0..intervals)
        .map(|i| {
            runs.iter()
                .filter_map(|s| s.by_2s.get(i))
                .fold((0, 0), |(r, m), c| (r + c.requests, m + c.misses))
        })
        .collect();
    // the measured run ends a little past its last whole interval: a last
    // interval with under a tenth of the requests of the one before is
    // that remainder, too small a sample to print beside the others
    if let [.., (before, _), (last, _)] = pooled[..] {
        if last * 10 < before {
            pooled.pop();
        }
    }
    let hit_ratio_by_2s = pooled
        .iter()
        .map(|&(requests, misses)| {
            (requests > 0).then(|| 100.0 * (1.0 - misses as f64 / requests as f64))
        })
        .collect();
    let mut pages_moved: Vec<u64> = runs.iter().map(|s| s.pages_moved).collect();
    pages_moved.sort_unstable();
    Some(StaysRow {
        cell: cell.clone(),
        runs: runs.len(),
        requests,
        misses_per_k: per_k(runs.iter().map(|s| s.misses).sum()),
        first_reads_per_k: per_k(runs.iter().map(|s| s.first_reads).sum()),
        classes,
        moves_per_k: per_k(runs.iter().map(|s| s.moves).sum()),
        pages_moved: pages_moved[(pages_moved.len() - 1) / 2],
        hit_ratio_by_2s,
    })
}

pub fn blocks(rows: &[StaysRow]) -> Vec<Block> {
    let Some(first) = rows.first() else {
        return Vec::new();
    };
    let classes: Vec<String> = first.classes.iter().map(|c| c.class.clone()).collect();
    let mut header: Vec<String> = ["tree", "workload", "threads", "variant", "runs"]
        .map(String::from)
        .to_vec();
    header.push("misses".into());
    header.push("never held".into());
    header.extend(classes.iter().cloned());
    let width = header.len();
    let share = |r: &StaysRow, class: &str, f: fn(&ClassShare) -> f64| {
        num(r.classes.iter().find(|c| c.class == class).map(f), 3)
    };
    let table = |f: fn(&ClassShare) -> f64, first_two: bool| Block::AlignedTable {
        header: header.clone(),
        right_aligned: (4..width).collect(),
        rows: rows
            .iter()
            .map(|r| {
                let mut row = cell_columns(&r.cell);
                row.push(r.runs.to_string());
                if first_two {
                    row.push(num(Some(r.misses_per_k), 3));
                    row.push(num(Some(r.first_reads_per_k), 3));
                } else {
                    row.push(String::new());
                    row.push(String::new());
                }
                row.extend(classes.iter().map(|c| share(r, c, f)));
                row
            })
            .collect(),
    };
    vec![
        Block::Heading(
            2,
            "What the traced servers did to the pages they lost".into(),
        ),
        Block::Para(
            "From each traced server's own records, no model: every stay of a page in the pool, \
             from its read to its eviction, is put in the first class that applies: \
             `flagged-unmoved` (flagged for a move, evicted before a sweep or the boundary moved \
             it; only a lazy server flags), `moved` (moved to the LRU head at least once), \
             `looked-up-again` (looked up again after the visit that first used it, never \
             moved), `accessed-again` (used again after that visit, never by a lookup, never \
             moved), `accessed-once` (used by that one visit or never); a visit's accesses come \
             in one millisecond. Each miss of the measured run \
             is charged to the class of its page's last stay, or to `never held`; per 1000 page \
             requests, summed over the runs. A class that grows from one server to another holds \
             that server's extra misses."
                .into(),
        ),
        table(|c| c.rereads_per_k, true),
        Block::Para(
            "Evictions of the measured run per 1000 page requests, by the class of the stay they \
             ended:"
                .into(),
        ),
        table(|c| c.evictions_per_k, false),
        Block::Para(
            "Moves to the LRU head (made young, a sweep's move, a move at the old sublist's \
             boundary) per 1000 page requests, the distinct pages moved (median over the runs), \
             and the hit ratio on the trace by 2 s of the measured run, pooled over the runs (a \
             last interval with under a tenth of the requests of the one before, the run's \
             remainder, is left out): a ratio still climbing at the end says the pool had not \
             settled."
                .into(),
        ),
        settling(rows),
    ]
}

/// A table row's first columns: the cell.
fn cell_columns(c: &Cell) -> Vec<String> {
    vec![
        c.tree.clone(),
        c.workload.clone(),
        c.threads.to_string(),
        c.variant.clone(),
    ]
}

/// The moves and the hit ratio by 2 s, one row per traced cell.
fn settling(rows: &[StaysRow]) -> Block {
    let intervals = rows
        .iter()
        .map(|r| r.hit_ratio_by_2s.len())
        .max()
        .unwrap_or(0);
    let mut header: Vec<String> = [
        "tree",
        "workload",
        "threads",
        "variant",
        "moves",
        "pages moved",
    ]
    .map(String::from)
    .to_vec();
    header.extend((0..intervals).map(|i| format!("{}-{} s", 2 * i, 2 * i + 2)));
    Block::AlignedTable {
        right_aligned: (4..header.len()).collect(),
        header,
        rows: rows
            .iter()
            .map(|r| {
                let mut row = cell_columns(&r.cell);
                row.push(num(Some(r.moves_per_k), 3));
                row.push(r.pages_moved.to_string());
                row.extend(
                    (0..intervals).map(|i| num(r.hit_ratio_by_2s.get(i).copied().flatten(), 2)),
                );
                row
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::IntervalCounts;

    #[test]
    fn no_trace_no_section() {
        assert!(blocks(&[]).is_empty());
    }

    #[test]
    fn a_class_share_is_per_thousand_requests_over_the_runs() {
        let stays = |requests, rereads| TraceStays {
            requests,
            misses: rereads + 1,
            first_reads: 1,
            classes: vec![StayRow {
                class: "moved".into(),
                evictions: 2 * rereads,
                rereads,
                median_gap_ms: None,
                median_stay_ms: None,
            }],
            // a full interval, an empty one, a half without misses, and
            // the run's remainder of one request
            by_2s: vec![
                IntervalCounts {
                    requests,
                    misses: rereads + 1,
                },
                IntervalCounts {
                    requests: 0,
                    misses: 0,
                },
                IntervalCounts {
                    requests: requests / 2,
                    misses: 0,
                },
                IntervalCounts {
                    requests: 1,
                    misses: 1,
                },
            ],
            moves: rereads,
            pages_moved: rereads / 4,
        };
        let cell = Cell {
            tree: "t".into(),
            variant: "v".into(),
            workload: "w".into(),
            threads: 2,
        };
        let runs = [stays(1000, 4), stays(3000, 8)];
        let row = row_of(&cell, &runs.iter().collect::<Vec<_>>()).unwrap();
        // 12 re-reads, 14 misses, 2 never held, 24 evictions in 4000 requests
        assert_eq!((row.runs, row.requests), (2, 4000));
        assert_eq!((row.misses_per_k, row.first_reads_per_k), (3.5, 0.5));
        assert_eq!(row.classes[0].rereads_per_k, 3.0);
        assert_eq!(row.classes[0].evictions_per_k, 6.0);
        // 12 moves in 4000 requests; pages moved 1 and 2: the lower middle
        assert_eq!((row.moves_per_k, row.pages_moved), (3.0, 1));
        // the empty interval says so; the remainder is left out
        assert_eq!(row.hit_ratio_by_2s, vec![Some(99.65), None, Some(100.0)]);
        assert_eq!(row_of(&cell, &[&stays(0, 0)]), None);
        let b = blocks(&[row]);
        let Block::AlignedTable { rows, header, .. } = &b[2] else {
            panic!("{b:?}")
        };
        assert_eq!(header.last().unwrap(), "moved");
        assert_eq!(rows[0][5..], ["3.500", "0.500", "3.000"]);
        let Block::AlignedTable { rows, .. } = &b[4] else {
            panic!("{b:?}")
        };
        assert_eq!(rows[0][7], "6.000");
        let Block::AlignedTable { rows, header, .. } = &b[6] else {
            panic!("{b:?}")
        };
        assert_eq!(header[6..], ["0-2 s", "2-4 s", "4-6 s"]);
        assert_eq!(rows[0][4..], ["3.000", "1", "99.65", "n/a", "100.00"]);
    }
}
