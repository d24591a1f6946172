//! The state of a pool after an event, read the same way from the oracle
//! and from the model, and where two such states first differ.

use std::fmt;

use lru_model::{BufferPool, Policy};

/// A block in the LRU list: the fields of `buf_page_t` the LRU decides by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// the page number
    pub page: u64,
    /// `old`: in the old sublist
    pub old: bool,
    /// `freed_page_clock`: the pool clock's low 31 bits when the block was
    /// last put at the head
    pub freed_page_clock: u32,
    /// `access_time` before the fix: the ms of the first access, 0 before it
    pub access_time_ms: u32,
    /// `access_time` after the fix: the access clock's tick of the first
    /// access (or of the latest move), 0 before it
    pub access_time_s: u16,
    /// after the fix: the PROMOTE flag, a move asked for
    pub promote: bool,
    /// our looked-up remedies: `looked_up`, a lookup has reached the block;
    /// None on a tree without the field
    pub looked_up: Option<bool>,
}

/// The pool after an event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// `buf_pool.LRU` from the head (most recently made young) to the tail
    pub lru: Vec<Block>,
    /// `buf_pool.LRU_old_len`
    pub old_len: u64,
    /// `UT_LIST_GET_LEN(buf_pool.free)`
    pub free_len: u64,
    /// `buf_pool.freed_page_clock`
    pub freed_page_clock: u64,
    /// the page of `buf_pool.LRU_old`, the old sublist's first block
    pub first_old: Option<u64>,
    /// `buf_pool.stat.n_pages_made_young`
    pub made_young: u64,
    /// `buf_pool.stat.n_pages_not_made_young`
    pub not_made_young: u64,
    /// `buf_pool.stat.LRU_waits`: reads that waited for a free block
    pub lru_waits: u64,
    /// `buf_pool.stat.n_pages_read`
    pub pages_read: u64,
}

impl Snapshot {
    /// The model's pool, read as the oracle's is.
    pub fn of_model<P: Policy>(pool: &BufferPool<P>) -> Snapshot {
        let lru: Vec<Block> = pool
            .lru_pages()
            .into_iter()
            .map(|page| {
                let s = pool
                    .page_state(page)
                    .expect("a page of the model's LRU list has a state");
                Block {
                    page,
                    old: s.old,
                    freed_page_clock: s.freed_page_clock,
                    access_time_ms: s.access_time_ms,
                    access_time_s: s.access_time_s,
                    promote: s.promote,
                    looked_up: crate::tree()
                        .is_ok_and(|t| t.looked_up)
                        .then_some(s.looked_up),
                }
            })
            .collect();
        let counters = pool.counters();
        Snapshot {
            first_old: lru.iter().find(|b| b.old).map(|b| b.page),
            lru,
            old_len: pool.old_len().into(),
            free_len: pool.free_len().into(),
            freed_page_clock: pool.freed_page_clock().into(),
            made_young: counters.made_young,
            not_made_young: counters.not_made_young,
            lru_waits: counters.lru_waits,
            pages_read: counters.reads,
        }
    }

    /// The first quantity in which `other` differs from `self`: the LRU
    /// list first (its length, then block by block from the head), then the
    /// pool's numbers.
    pub fn first_difference(&self, other: &Snapshot) -> Option<Difference> {
        if self.lru.len() != other.lru.len() {
            return Some(Difference {
                what: "LRU length".into(),
                left: self.lru.len().to_string(),
                right: other.lru.len().to_string(),
                position: first_differing_block(&self.lru, &other.lru),
            });
        }
        if let Some(i) = first_differing_block(&self.lru, &other.lru) {
            let (a, b) = (self.lru[i], other.lru[i]);
            let what = if a.page != b.page {
                "page"
            } else if a.old != b.old {
                "old flag"
            } else if a.freed_page_clock != b.freed_page_clock {
                "freed_page_clock stamp"
            } else if a.promote != b.promote {
                "PROMOTE flag"
            } else if a.looked_up != b.looked_up {
                "looked_up mark"
            } else {
                "access_time"
            };
            return Some(Difference {
                what: format!("{what} of LRU block {i}"),
                left: a.to_string(),
                right: b.to_string(),
                position: Some(i),
            });
        }
        let numbers = [
            ("LRU_old_len", self.old_len, other.old_len),
            ("free list length", self.free_len, other.free_len),
            (
                "buf_pool.freed_page_clock",
                self.freed_page_clock,
                other.freed_page_clock,
            ),
            ("pages made young", self.made_young, other.made_young),
            (
                "pages not made young",
                self.not_made_young,
                other.not_made_young,
            ),
            ("LRU waits", self.lru_waits, other.lru_waits),
            ("pages read", self.pages_read, other.pages_read),
        ];
        if let Some((what, a, b)) = numbers.into_iter().find(|(_, a, b)| a != b) {
            return Some(Difference {
                what: what.into(),
                left: a.to_string(),
                right: b.to_string(),
                position: None,
            });
        }
        (self.first_old != other.first_old).then(|| Difference {
            what: "LRU_old (the old sublist's first block)".into(),
            left: format!("{:?}", self.first_old),
            right: format!("{:?}", other.first_old),
            position: None,
        })
    }

    /// The LRU blocks around `position` (up to `radius` on each side), one a
    /// line, with their positions.
    pub fn lru_around(&self, position: usize, radius: usize) -> String {
        let from = position.saturating_sub(radius);
        let to = (position + radius + 1).min(self.lru.len());
        (from..to)
            .map(|i| {
                format!(
                    "{}{i:>6}: {}",
                    if i == position { ">" } else { " " },
                    self.lru[i]
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

fn first_differing_block(a: &[Block], b: &[Block]) -> Option<usize> {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or_else(|| (a.len() != b.len()).then_some(a.len().min(b.len())))
}

impl fmt::Display for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "page {} {} stamp {} access {}",
            self.page,
            if self.old { "old" } else { "young" },
            self.freed_page_clock,
            self.access_time_ms
        )?;
        if self.access_time_s != 0 || self.promote {
            write!(f, " access tick {}", self.access_time_s)?;
        }
        if self.promote {
            write!(f, " PROMOTE")?;
        }
        if self.looked_up == Some(true) {
            write!(f, " looked-up")?;
        }
        Ok(())
    }
}

/// Where two snapshots first differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// the quantity
    pub what: String,
    /// its value in the first snapshot
    pub left: String,
    /// its value in the second
    pub right: String,
    /// the LRU position, where the difference is in the list
    pub position: Option<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(page: u64, old: bool) -> Block {
        Block {
            page,
            old,
            ..Block::default()
        }
    }

    #[test]
    fn names_the_first_block_that_differs_then_the_numbers() {
        let a = Snapshot {
            lru: vec![block(1, false), block(2, true), block(3, true)],
            old_len: 2,
            ..Snapshot::default()
        };
        assert_eq!(a.first_difference(&a.clone()), None);
        let mut b = a.clone();
        b.lru[1].old = false;
        let d = a.first_difference(&b).unwrap();
        assert_eq!(
            (d.what.as_str(), d.position),
            ("old flag of LRU block 1", Some(1))
        );
        let mut c = a.clone();
        c.lru.pop();
        let d = a.first_difference(&c).unwrap();
        assert_eq!(
            (d.what.as_str(), d.left.as_str(), d.position),
            ("LRU length", "3", Some(2))
        );
        let mut m = a.clone();
        m.lru[2].looked_up = Some(true);
        let d = a.first_difference(&m).unwrap();
        assert_eq!(
            (d.what.as_str(), d.right.as_str()),
            (
                "looked_up mark of LRU block 2",
                "page 3 old stamp 0 access 0 looked-up"
            )
        );
        let mut e = a.clone();
        e.made_young = 1;
        let d = a.first_difference(&e).unwrap();
        assert_eq!(
            (d.what.as_str(), d.right.as_str()),
            ("pages made young", "1")
        );
        assert!(
            a.lru_around(1, 1).contains(">     1: page 2 old"),
            "{}",
            a.lru_around(1, 1)
        );
    }
}
