//! What a traced server did to the pages it lost: each stay of a page in
//! the pool, from its read (or creation) to its eviction, falls in one
//! [`StayClass`] by what the server did to the block meanwhile, and each
//! miss that reads a page again is charged to the class of that page's
//! last stay. Two servers of one workload, base and a remedy, then show
//! in which class the remedy's extra misses are: blocks it flagged but
//! did not move in time, blocks it moved and lost all the same, looked-up
//! blocks it never flagged, or blocks only other accesses reached. The
//! server's own records decide, no policy of the model does.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use serde::Serialize;

use crate::server_trace::{ServerOp, ServerTrace};

/// What the server had done to a block by the time it evicted it; the
/// first that applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StayClass {
    /// flagged for a move (a remedy's `Flag` record) and evicted before a
    /// sweep or the boundary moved it
    FlaggedUnmoved,
    /// moved to the LRU head at least once (made young, a sweep move, a
    /// boundary move)
    Moved,
    /// looked up again after the visit that first used it, never moved
    LookedUpAgain,
    /// used again after that first visit, never by a lookup, never moved
    AccessedAgain,
    /// used by one visit or none (read-ahead never used)
    AccessedOnce,
}

impl StayClass {
    /// Every class, in the order of the table.
    pub const ALL: [StayClass; 5] = [
        StayClass::FlaggedUnmoved,
        StayClass::Moved,
        StayClass::LookedUpAgain,
        StayClass::AccessedAgain,
        StayClass::AccessedOnce,
    ];

    /// The name the table and the JSON use.
    pub fn name(self) -> &'static str {
        match self {
            StayClass::FlaggedUnmoved => "flagged-unmoved",
            StayClass::Moved => "moved",
            StayClass::LookedUpAgain => "looked-up-again",
            StayClass::AccessedAgain => "accessed-again",
            StayClass::AccessedOnce => "accessed-once",
        }
    }
}

/// The counted stays and re-reads of one class.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassRow {
    /// the class
    pub class: StayClass,
    /// evictions in the counted records that ended a stay of this class
    pub evictions: u64,
    /// misses in the counted records of a page whose last stay was of
    /// this class
    pub rereads: u64,
    /// median ms from such a page's eviction to its miss; None without
    /// re-reads
    pub median_gap_ms: Option<u32>,
    /// median ms of the stays this class evicted; None without evictions
    pub median_stay_ms: Option<u32>,
}

/// The server's stays, by class.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stays {
    /// page requests in the counted records
    pub gets: u64,
    /// requests in the counted records for a page the server did not hold
    pub misses: u64,
    /// of those, pages the trace had never seen in the pool
    pub first_reads: u64,
    /// one row per class, in [`StayClass::ALL`]'s order
    pub classes: Vec<ClassRow>,
    /// the counted records' requests and misses by [`INTERVAL_MS`] from the
    /// first counted record's time: whether the hit ratio had settled
    pub by_interval: Vec<IntervalHits>,
    /// moves to the LRU head in the counted records (made young, a sweep
    /// move, a boundary move)
    pub moves: u64,
    /// distinct pages moved in the counted records
    pub pages_moved: u64,
}

/// The length of an interval of [`Stays::by_interval`].
pub const INTERVAL_MS: u32 = 2000;

/// Requests and misses of one interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IntervalHits {
    /// page requests
    pub gets: u64,
    /// of them, for a page the server did not hold
    pub misses: u64,
}

#[derive(Default)]
struct Stay {
    since_ms: u32,
    /// when the first access came: the visit that used the page first
    /// (a read for a lookup, a range's move with its lookup touch) makes
    /// its accesses in the same millisecond
    first_access_ms: Option<u32>,
    lookups_after: u32,
    accesses_after: u32,
    flag_pending: bool,
    moved: bool,
}

impl Stay {
    fn class(&self) -> StayClass {
        if self.flag_pending {
            StayClass::FlaggedUnmoved
        } else if self.moved {
            StayClass::Moved
        } else if self.lookups_after > 0 {
            StayClass::LookedUpAgain
        } else if self.accesses_after > 0 {
            StayClass::AccessedAgain
        } else {
            StayClass::AccessedOnce
        }
    }
}

fn median(mut v: Vec<u32>) -> Option<u32> {
    v.sort_unstable();
    v.get(v.len() / 2).copied()
}

/// The page requests of the counted records: hits and misses by interval,
/// and for each miss of a page seen before, the gap since its last stay
/// ended, by that stay's class.
#[derive(Default)]
struct RequestTally {
    gets: u64,
    misses: u64,
    first_reads: u64,
    by_interval: Vec<IntervalHits>,
    first_ms: Option<u32>,
    gap_ms: HashMap<StayClass, Vec<u32>>,
}

impl RequestTally {
    /// One request at `t_ms`; `gone` is the class and end of the page's
    /// last stay, when it had one.
    fn count(&mut self, t_ms: u32, miss: bool, gone: Option<(StayClass, u32)>) {
        self.gets += 1;
        // threads claim records slightly out of time order
        let since = t_ms.saturating_sub(*self.first_ms.get_or_insert(t_ms));
        let i = (since / INTERVAL_MS) as usize;
        if self.by_interval.len() <= i {
            self.by_interval
                .resize(i + 1, IntervalHits { gets: 0, misses: 0 });
        }
        self.by_interval[i].gets += 1;
        self.by_interval[i].misses += u64::from(miss);
        if !miss {
            return;
        }
        self.misses += 1;
        match gone {
            Some((class, at)) => self
                .gap_ms
                .entry(class)
                .or_default()
                .push(t_ms.saturating_sub(at)),
            None => self.first_reads += 1,
        }
    }
}

/// Follow every page of `trace` through its stays; count the evictions and
/// misses of the records in `counted` (record numbers, as a run result's
/// `outcome.page_trace.records` gives them).
pub fn stays(trace: &ServerTrace, counted: Range<u64>) -> Stays {
    let mut held: HashMap<u64, Stay> = HashMap::new();
    // each evicted page: the class of its last stay and when it ended
    let mut gone: HashMap<u64, (StayClass, u32)> = HashMap::new();
    let mut looked_up: HashSet<u64> = HashSet::new();
    let mut stay_ms: HashMap<StayClass, Vec<u32>> = HashMap::new();
    let mut requests = RequestTally::default();
    let (mut moves, mut moved) = (0, HashSet::new());
    for e in &trace.events {
        let counting = counted.contains(&e.seq);
        match e.op {
            ServerOp::Get => {
                let miss = !held.contains_key(&e.page);
                if counting {
                    requests.count(e.t_ms, miss, gone.get(&e.page).copied());
                }
                // charged once: the next miss of the page needs a new stay
                if miss {
                    gone.remove(&e.page);
                }
            }
            ServerOp::Read | ServerOp::Create => {
                held.entry(e.page).or_insert_with(|| Stay {
                    since_ms: e.t_ms,
                    ..Stay::default()
                });
            }
            ServerOp::Lookup => {
                looked_up.insert(e.page);
            }
            ServerOp::Access => {
                let lookup = looked_up.remove(&e.page);
                if let Some(s) = held.get_mut(&e.page) {
                    match s.first_access_ms {
                        None => s.first_access_ms = Some(e.t_ms),
                        Some(first) if first == e.t_ms => {}
                        Some(_) if lookup => s.lookups_after += 1,
                        Some(_) => s.accesses_after += 1,
                    }
                }
            }
            ServerOp::Flag => {
                if let Some(s) = held.get_mut(&e.page) {
                    s.flag_pending = true;
                }
            }
            ServerOp::Young | ServerOp::BoundaryMove => {
                if counting {
                    moves += 1;
                    moved.insert(e.page);
                }
                if let Some(s) = held.get_mut(&e.page) {
                    s.moved = true;
                    s.flag_pending = false;
                }
            }
            ServerOp::Evict => {
                if let Some(s) = held.remove(&e.page) {
                    let class = s.class();
                    if counting {
                        stay_ms
                            .entry(class)
                            .or_default()
                            .push(e.t_ms.saturating_sub(s.since_ms));
                    }
                    gone.insert(e.page, (class, e.t_ms));
                }
            }
            ServerOp::Free | ServerOp::Cleaner => {}
        }
    }
    let classes = StayClass::ALL
        .iter()
        .map(|&class| {
            let stays = stay_ms.remove(&class).unwrap_or_default();
            let gaps = requests.gap_ms.remove(&class).unwrap_or_default();
            ClassRow {
                class,
                evictions: stays.len() as u64,
                rereads: gaps.len() as u64,
                median_gap_ms: median(gaps),
                median_stay_ms: median(stays),
            }
        })
        .collect();
    Stays {
        gets: requests.gets,
        misses: requests.misses,
        first_reads: requests.first_reads,
        classes,
        by_interval: requests.by_interval,
        moves,
        pages_moved: moved.len() as u64,
    }
}

/// The table of [`stays`], one line a class, per 1000 page requests,
/// after the moves and the hit ratio by interval.
pub fn stays_text(s: &Stays) -> String {
    let per_k = |n: u64| {
        if s.gets == 0 {
            "-".to_string()
        } else {
            format!("{:.3}", 1000.0 * n as f64 / s.gets as f64)
        }
    };
    let ms = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
    let mut out = format!(
        "{} requests, {} misses ({} per 1000), {} of pages never held before\n\
         {} moves to the LRU head, of {} pages\n\
         hit ratio by {} s:",
        s.gets,
        s.misses,
        per_k(s.misses),
        s.first_reads,
        s.moves,
        s.pages_moved,
        INTERVAL_MS / 1000
    );
    for i in &s.by_interval {
        if i.gets > 0 {
            out += &format!(" {:.2}", 100.0 * (1.0 - i.misses as f64 / i.gets as f64));
        } else {
            out += " -";
        }
    }
    out += &format!(
        "\n{:<16} {:>10} {:>10} {:>12} {:>12} {:>14}\n",
        "last stay", "evicted", "re-read", "re-read/1000", "median gap", "median stay"
    );
    for r in &s.classes {
        out += &format!(
            "{:<16} {:>10} {:>10} {:>12} {:>10} ms {:>11} ms\n",
            r.class.name(),
            r.evictions,
            r.rereads,
            per_k(r.rereads),
            ms(r.median_gap_ms),
            ms(r.median_stay_ms)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server_trace::ServerEvent;

    fn trace(records: &[(u32, ServerOp, u64)]) -> ServerTrace {
        ServerTrace {
            page_size: 16384,
            pool_frames: 64,
            lost: 0,
            unwritten: 0,
            events: records
                .iter()
                .enumerate()
                .map(|(i, &(t_ms, op, page))| ServerEvent {
                    seq: i as u64,
                    t_ms,
                    op,
                    page,
                })
                .collect(),
        }
    }

    fn row(s: &Stays, class: StayClass) -> &ClassRow {
        s.classes.iter().find(|r| r.class == class).unwrap()
    }

    #[test]
    fn each_miss_is_charged_to_the_last_stay_of_its_page() {
        use ServerOp::*;
        let t = trace(&[
            // page 1: read, looked up, flagged, evicted before a move
            (0, Get, 1),
            (0, Read, 1),
            (0, Access, 1),
            (5, Lookup, 1),
            (5, Access, 1),
            (5, Flag, 1),
            (10, Evict, 1),
            // page 2: flagged, moved at the boundary, evicted later
            (11, Get, 2),
            (11, Read, 2),
            (11, Access, 2),
            (12, Flag, 2),
            (13, BoundaryMove, 2),
            (20, Evict, 2),
            // page 3: two plain accesses; page 4: read ahead, never used
            (21, Read, 3),
            (21, Access, 3),
            (22, Access, 3),
            (23, Read, 4),
            (30, Evict, 3),
            (31, Evict, 4),
            // the misses that read them again
            (40, Get, 1),
            (41, Get, 2),
            (42, Get, 3),
            (42, Read, 3),
            (43, Get, 4),
            // page 3 is held again: a hit, not charged
            (44, Get, 3),
        ]);
        let s = stays(&t, 0..u64::MAX);
        assert_eq!((s.gets, s.misses, s.first_reads), (7, 6, 2));
        let flagged = row(&s, StayClass::FlaggedUnmoved);
        assert_eq!((flagged.evictions, flagged.rereads), (1, 1));
        assert_eq!(flagged.median_gap_ms, Some(30));
        assert_eq!(flagged.median_stay_ms, Some(10));
        assert_eq!(row(&s, StayClass::Moved).rereads, 1);
        assert_eq!(row(&s, StayClass::AccessedAgain).rereads, 1);
        assert_eq!(row(&s, StayClass::AccessedOnce).rereads, 1);
        assert_eq!(row(&s, StayClass::LookedUpAgain).evictions, 0);
        assert_eq!(row(&s, StayClass::LookedUpAgain).median_gap_ms, None);
        assert_eq!((s.moves, s.pages_moved), (1, 1));
        // all in the first 2 s: 7 requests, 6 misses
        assert_eq!(s.by_interval, vec![IntervalHits { gets: 7, misses: 6 }]);
    }

    #[test]
    fn only_the_counted_records_are_counted_and_a_page_is_charged_once() {
        use ServerOp::*;
        let t = trace(&[
            // page 1: read by a lookup, looked up again later
            (0, Read, 1),
            (0, Lookup, 1),
            (0, Access, 1),
            (1, Lookup, 1),
            (1, Access, 1),
            (2, Evict, 1),
            // page 2: a range's move touches it twice in one visit
            (2, Read, 2),
            (3, Access, 2),
            (3, Lookup, 2),
            (3, Access, 2),
            (4, Evict, 2),
            (5, Get, 1),
            (6, Get, 1),
            (7, Get, 2),
        ]);
        // the evictions are outside the counted records, the misses inside
        let s = stays(&t, 11..14);
        let again = row(&s, StayClass::LookedUpAgain);
        assert_eq!(again.evictions, 0);
        assert_eq!(
            again.rereads, 1,
            "the second miss of the same stay is not charged again"
        );
        assert_eq!(row(&s, StayClass::AccessedOnce).rereads, 1, "one visit");
        assert_eq!((s.gets, s.misses, s.first_reads), (3, 3, 1));
        assert!(stays_text(&s).contains("looked-up-again"));
    }

    #[test]
    fn the_hit_ratio_is_counted_by_interval_from_the_first_counted_record() {
        use ServerOp::*;
        let t = trace(&[
            (100, Get, 1),
            (100, Read, 1),
            (1500, Get, 1),
            (4600, Get, 2),
            (4600, Get, 1),
        ]);
        let s = stays(&t, 0..u64::MAX);
        assert_eq!(
            s.by_interval,
            vec![
                IntervalHits { gets: 2, misses: 1 },
                IntervalHits { gets: 0, misses: 0 },
                IntervalHits { gets: 2, misses: 1 },
            ]
        );
        assert!(
            stays_text(&s).contains("hit ratio by 2 s: 50.00 - 50.00"),
            "{}",
            stays_text(&s)
        );
    }
}
