//! Folded stacks, the flame graph format the field exchanges: one line per
//! distinct stack, its frames from the outermost to the innermost joined
//! by `;`, a space, and the number of samples that had it. The profile
//! pass writes its on-CPU and wait stacks in it; reports read them back.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Samples per stack. A stack is its frames joined by `;`, outermost
/// first, each frame a function's name without its argument list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FoldedStacks {
    stacks: BTreeMap<String, u64>,
}

/// A line of a folded file that is not `frames count`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldedLineError {
    /// 1-based
    pub line: usize,
    pub why: String,
}

impl fmt::Display for FoldedLineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.why)
    }
}

impl std::error::Error for FoldedLineError {}

/// How one frame's share of the samples moved from one profile to another.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameChange {
    pub frame: String,
    /// share of the samples whose stack holds the frame, 0 to 1
    pub before: f64,
    pub after: f64,
}

impl FrameChange {
    pub fn delta(&self) -> f64 {
        self.after - self.before
    }
}

impl FoldedStacks {
    /// Adds `count` samples of the stack `frames` (outermost first). A `;`
    /// inside a name would split the frame: it becomes `:`.
    pub fn add<S: AsRef<str>>(&mut self, frames: &[S], count: u64) {
        if frames.is_empty() || count == 0 {
            return;
        }
        let key = frames
            .iter()
            .map(|f| f.as_ref().replace(';', ":"))
            .collect::<Vec<_>>()
            .join(";");
        *self.stacks.entry(key).or_default() += count;
    }

    /// Reads folded text; a line that is not `frames count` is refused with
    /// its number. Empty lines are skipped.
    pub fn parse(text: &str) -> Result<FoldedStacks, FoldedLineError> {
        let mut folded = FoldedStacks::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end();
            if line.is_empty() {
                continue;
            }
            let err = |why: &str| FoldedLineError {
                line: i + 1,
                why: why.to_string(),
            };
            let (stack, count) = line
                .rsplit_once(' ')
                .ok_or_else(|| err("no sample count after the stack"))?;
            let count: u64 = count
                .parse()
                .map_err(|_| err("the sample count is not a whole number"))?;
            if stack.is_empty() {
                return Err(err("an empty stack"));
            }
            *folded.stacks.entry(stack.to_string()).or_default() += count;
        }
        Ok(folded)
    }

    /// The folded text, one stack a line in name order.
    pub fn to_text(&self) -> String {
        self.stacks
            .iter()
            .map(|(stack, n)| format!("{stack} {n}\n"))
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.stacks.is_empty()
    }

    /// Every sample.
    pub fn total(&self) -> u64 {
        self.stacks.values().sum()
    }

    /// (frames outermost first, samples) of every stack.
    pub fn iter(&self) -> impl Iterator<Item = (Vec<&str>, u64)> {
        self.stacks
            .iter()
            .map(|(s, n)| (s.split(';').collect(), *n))
    }

    /// Share (0 to 1) of the samples whose stack (outermost frame first)
    /// satisfies `keep`; None without samples.
    pub fn share_where(&self, keep: impl Fn(&[&str]) -> bool) -> Option<f64> {
        let total = self.total();
        let kept: u64 = self
            .iter()
            .filter(|(frames, _)| keep(frames))
            .map(|(_, n)| n)
            .sum();
        (total > 0).then(|| kept as f64 / total as f64)
    }

    /// Share of the samples whose stack holds a frame named `name` (see
    /// [`frame_is`]).
    pub fn share_of(&self, name: &str) -> Option<f64> {
        self.share_where(|frames| frames.iter().any(|f| frame_is(f, name)))
    }

    /// Share of the samples whose stack holds `inner` somewhere inside (called,
    /// directly or not, from) `outer`.
    pub fn share_under(&self, inner: &str, outer: &str) -> Option<f64> {
        self.share_where(|frames| {
            frames
                .iter()
                .position(|f| frame_is(f, outer))
                .is_some_and(|o| frames[o + 1..].iter().any(|f| frame_is(f, inner)))
        })
    }

    /// Inclusive share of every frame: the samples whose stack holds it,
    /// counted once per stack.
    pub fn frame_shares(&self) -> BTreeMap<String, f64> {
        let total = self.total();
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for (frames, n) in self.iter() {
            let distinct: BTreeSet<&str> = frames.into_iter().collect();
            for f in distinct {
                *counts.entry(f).or_default() += n;
            }
        }
        counts
            .into_iter()
            .map(|(f, n)| (f.to_string(), n as f64 / total.max(1) as f64))
            .collect()
    }

    /// Self share of every frame: the samples whose innermost frame it is
    /// (where the time was spent, not what it was spent under).
    pub fn self_shares(&self) -> BTreeMap<String, f64> {
        let total = self.total().max(1) as f64;
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for (frames, n) in self.iter() {
            if let Some(leaf) = frames.last() {
                *counts.entry(leaf).or_default() += n;
            }
        }
        counts
            .into_iter()
            .map(|(f, n)| (f.to_string(), n as f64 / total))
            .collect()
    }

    /// The `n` frames whose self share moved most from `before` to `self`,
    /// largest move first (ties by name). Self shares, because inclusive
    /// ones move together all the way up a stack: a frame that vanished
    /// shifts every caller's share by as much.
    pub fn largest_changes(&self, before: &FoldedStacks, n: usize) -> Vec<FrameChange> {
        let old = before.self_shares();
        let new = self.self_shares();
        let names: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
        let mut changes: Vec<FrameChange> = names
            .into_iter()
            .map(|f| FrameChange {
                frame: f.clone(),
                before: old.get(f).copied().unwrap_or(0.0),
                after: new.get(f).copied().unwrap_or(0.0),
            })
            .collect();
        changes.sort_by(|a, b| {
            b.delta()
                .abs()
                .total_cmp(&a.delta().abs())
                .then_with(|| a.frame.cmp(&b.frame))
        });
        changes.truncate(n);
        changes
    }

    /// The `n` most sampled stacks, most first (ties by stack).
    pub fn top_stacks(&self, n: usize) -> Vec<(Vec<&str>, u64)> {
        let mut all: Vec<(Vec<&str>, u64)> = self.iter().collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        all.truncate(n);
        all
    }

    /// Share of the samples whose innermost frame has no name under a
    /// named one: what a binary without symbols leaves (`[unknown]` from
    /// perf, `??` from gdb, or a bare address). A stack with no named frame
    /// at all is a thread with no user-space stack to unwind (an io_uring
    /// worker), not a missing symbol, and is not counted.
    pub fn unnamed_leaf_share(&self) -> Option<f64> {
        self.share_where(|frames| {
            frames.last().is_some_and(|f| is_unnamed(f)) && frames.iter().any(|f| !is_unnamed(f))
        })
    }

    /// Share of the samples whose stack does not reach the thread's start
    /// (no frame of [`THREAD_ENTRIES`]): the unwinder stopped early, so
    /// the sample hangs from `[unknown]` or from a frame deep inside its
    /// real callers, and a share counted over callers misses it. As for
    /// [`Self::unnamed_leaf_share`], a stack with no named frame at all
    /// (a thread with no user-space stack, as gdb shows an io_uring
    /// worker) has nothing to unwind and is not counted.
    pub fn cut_short_share(&self) -> Option<f64> {
        self.share_where(|frames| {
            frames.iter().any(|f| !is_unnamed(f))
                && !frames
                    .iter()
                    .any(|f| THREAD_ENTRIES.iter().any(|entry| frame_is(f, entry)))
        })
    }
}

/// The frames a thread's stack starts from: glibc's thread start (under
/// the kernel's `clone`/`clone3`) or the process's `main`. A stack that
/// holds none of them was cut short by the unwinder.
const THREAD_ENTRIES: [&str; 5] = [
    "clone",
    "clone3",
    "start_thread",
    "__libc_start_main",
    "_start",
];

/// Whether a frame names no function.
pub fn is_unnamed(frame: &str) -> bool {
    frame == "[unknown]" || frame == "??" || frame.starts_with("0x")
}

/// Whether `frame` is the function `name`: the same, or the same with a
/// compiler's clone suffix (`.isra.0`, `.constprop.0`, `.cold`, `.part.0`).
pub fn frame_is(frame: &str, name: &str) -> bool {
    frame
        .strip_prefix(name)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> FoldedStacks {
        FoldedStacks::parse(
            "start_thread;do_command;buf_page_get_low;buf_page_make_young 3\n\
             start_thread;do_command;buf_page_get_low 5\n\
             start_thread;buf_flush_page_cleaner;[unknown] 2\n",
        )
        .unwrap()
    }

    #[test]
    fn text_round_trips_and_counts_add_up() {
        let f = sample();
        assert_eq!(f.total(), 10);
        assert_eq!(FoldedStacks::parse(&f.to_text()).unwrap(), f);
        let mut g = FoldedStacks::default();
        g.add(&["a", "b;c"], 2);
        g.add(&["a", "b;c"], 1);
        g.add::<&str>(&[], 4);
        assert_eq!(g.to_text(), "a;b:c 3\n");
    }

    #[test]
    fn a_bad_line_is_named() {
        let err = FoldedStacks::parse("a;b 1\n\na;c x\n").unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.to_string().contains("not a whole number"), "{err}");
        assert_eq!(FoldedStacks::parse("a;b\n").unwrap_err().line, 1);
    }

    #[test]
    fn shares_are_inclusive_and_nesting_is_checked() {
        let f = sample();
        assert_eq!(f.share_of("buf_page_make_young"), Some(0.3));
        assert_eq!(f.share_of("buf_page_get_low"), Some(0.8));
        assert_eq!(
            f.share_under("buf_page_make_young", "buf_page_get_low"),
            Some(0.3)
        );
        assert_eq!(
            f.share_under("buf_page_get_low", "buf_page_make_young"),
            Some(0.0)
        );
        assert_eq!(f.unnamed_leaf_share(), Some(0.2));
        let no_user_stack = FoldedStacks::parse("?? 5\nmain;?? 5\n").unwrap();
        assert_eq!(no_user_stack.unnamed_leaf_share(), Some(0.5));
        assert_eq!(FoldedStacks::default().share_of("x"), None);
        let shares = f.frame_shares();
        assert_eq!(shares["start_thread"], 1.0);
        // a frame twice in one stack counts that stack once
        let r = FoldedStacks::parse("f;g;f 4\nh 4\n").unwrap();
        assert_eq!(r.frame_shares()["f"], 0.5);
    }

    #[test]
    fn a_stack_that_does_not_reach_the_thread_start_is_cut_short() {
        // as perf folds them: the process name first, then the outermost frame
        let f = FoldedStacks::parse(
            "mariadbd;clone3;start_thread;do_command;row_search_mvcc 6\n\
             mariadbd;[unknown];dispatch_command;SEL_ARG::sel_cmp 3\n\
             mariadbd;row_search_mvcc;rec_get_offsets_func 1\n\
             mariadbd;__libc_start_main.impl;main;handle_connections_sockets 2\n\
             ?? 4\n",
        )
        .unwrap();
        assert_eq!(f.cut_short_share(), Some(4.0 / 16.0));
        assert_eq!(sample().cut_short_share(), Some(0.0));
        assert_eq!(FoldedStacks::default().cut_short_share(), None);
    }

    #[test]
    fn largest_changes_come_first() {
        let before = sample();
        let after = FoldedStacks::parse(
            "start_thread;do_command;buf_page_get_low 8\nstart_thread;buf_flush_page_cleaner;[unknown] 2\n",
        )
        .unwrap();
        let changes = after.largest_changes(&before, 2);
        // self shares: make_young lost its 30%, get_low took it
        assert_eq!(changes[0].frame, "buf_page_get_low");
        assert!((changes[0].delta() - 0.3).abs() < 1e-12);
        assert_eq!(changes[1].frame, "buf_page_make_young");
        assert!((changes[1].delta() + 0.3).abs() < 1e-12);
        assert_eq!(changes.len(), 2);
        assert_eq!(after.top_stacks(1)[0].1, 8);
    }

    #[test]
    fn clone_suffixes_name_the_same_function() {
        assert!(frame_is(
            "buf_page_make_young.isra.0",
            "buf_page_make_young"
        ));
        assert!(!frame_is(
            "buf_page_make_young_if_needed",
            "buf_page_make_young"
        ));
    }
}
