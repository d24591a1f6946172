//! The server's own page trace (`patches/any/trace-recorder.patch`): what a
//! traced `mariadbd` did to its buffer pool, and its replay through a
//! policy of this model at the same pool size, so that the model's hit ratio
//! can be set beside the one the server measured on the same page stream.
//!
//! The file is the recorder's mapping, little-endian:
//!
//! * a header of [`HEADER_BYTES`]: the magic `ILTRACE1`, the capacity in
//!   records (u64), the records the server claimed (u64: past the capacity
//!   when the buffer filled, and the records past it are lost), the
//!   server's `innodb_page_size` (u64) and the pool's frames
//!   (`buf_pool.curr_size()`, u64) when the recorder opened;
//! * then [`RECORD_BYTES`] a record: `t_ms` (u32, since the recorder
//!   started), the op (u8), three bytes of padding, the tablespace id (u32)
//!   and the page number (u32).
//!
//! A record whose op byte is 0 was claimed but not yet written when the file
//! was read (the server was killed between the two): it is skipped and
//! counted.

use std::collections::HashSet;
use std::fmt;
use std::ops::Range;

use serde::Serialize;

use crate::policy::PolicyKind;
use crate::pool::{Config, Counters, ModelError};
use crate::trace::{Event, Op};

/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"ILTRACE1";
/// Bytes before the first record.
pub const HEADER_BYTES: usize = 64;
/// Bytes of one record.
pub const RECORD_BYTES: usize = 16;

/// What the server did, one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerOp {
    /// a page request (`buf_page_get_gen`, `buf_pool_t::page_fix`,
    /// `buf_page_get_zip`, `buf_page_try_get`, `buf_page_optimistic_get`),
    /// found in the pool or not
    Get,
    /// an access the LRU sees (`buf_page_make_young_if_needed`, the
    /// non-leaf make-young of `btr0cur.cc`)
    Access,
    /// a page was read into the pool, on a request or by read-ahead
    Read,
    /// a block left the LRU (evicted, or its freed page released)
    Evict,
    /// a page was freed by the B-tree (`buf_page_free`)
    Free,
    /// a page-cleaner LRU batch began
    Cleaner,
    /// a block was moved to the head of the LRU (made young, or a sweep move)
    Young,
    /// a new page was created in the pool, at the head of the LRU
    /// (`buf_page_create_low`: never read)
    Create,
    /// the next access to this page is a lookup (`btr_cur_t::search_leaf`,
    /// an adaptive hash index hit), not a scan's move or cursor restore
    Lookup,
    /// a lazy server's access flagged the block for a sweep to move
    /// (`buf_page_t::touch_no_stamp` set PROMOTE); written by traced
    /// remedies only
    Flag,
    /// a flagged young block moved to the head at the old sublist's
    /// boundary (`buf_page_t::keep_young_at_boundary`) instead of becoming
    /// old; written by traced remedies only
    BoundaryMove,
}

impl ServerOp {
    fn from_byte(b: u8) -> Option<ServerOp> {
        Some(match b {
            1 => ServerOp::Get,
            2 => ServerOp::Access,
            3 => ServerOp::Read,
            4 => ServerOp::Evict,
            5 => ServerOp::Free,
            6 => ServerOp::Cleaner,
            7 => ServerOp::Young,
            8 => ServerOp::Create,
            9 => ServerOp::Lookup,
            10 => ServerOp::Flag,
            11 => ServerOp::BoundaryMove,
            _ => return None,
        })
    }
}

/// One record of the server's trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerEvent {
    /// its place in the file: the records the server had claimed before it
    pub seq: u64,
    /// ms since the recorder started
    pub t_ms: u32,
    /// what the server did
    pub op: ServerOp,
    /// `(space_id << 32) | page_no`
    pub page: u64,
}

/// A trace file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerTraceError {
    /// shorter than its header
    Short(usize),
    /// does not start with [`MAGIC`]
    Magic,
    /// fewer bytes than the header's capacity needs
    Truncated {
        /// records the header says the file holds
        capacity: u64,
        /// bytes the file has
        bytes: usize,
    },
    /// an op byte the recorder never writes
    UnknownOp {
        /// 0-based record index
        record: u64,
        /// the byte
        op: u8,
    },
}

impl fmt::Display for ServerTraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerTraceError::Short(n) => {
                write!(f, "{n} bytes: shorter than the {HEADER_BYTES}-byte header")
            }
            ServerTraceError::Magic => {
                write!(f, "not a server trace: it does not start with ILTRACE1")
            }
            ServerTraceError::Truncated { capacity, bytes } => write!(
                f,
                "the header says {capacity} records, but the file has only {bytes} bytes"
            ),
            ServerTraceError::UnknownOp { record, op } => {
                write!(f, "record {record}: unknown op byte {op}")
            }
        }
    }
}

impl std::error::Error for ServerTraceError {}

/// A parsed trace: its records in the order the server claimed them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerTrace {
    /// the server's `innodb_page_size`
    pub page_size: u64,
    /// the pool's frames when the recorder opened
    pub pool_frames: u64,
    /// records the server claimed beyond the capacity (lost)
    pub lost: u64,
    /// records claimed but never written (a killed server)
    pub unwritten: u64,
    /// the records
    pub events: Vec<ServerEvent>,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Bytes of the header that [`claimed`] needs: the magic, the capacity and
/// the claimed count.
pub const CLAIMED_BYTES: usize = 24;

/// The records a server has claimed, from the first [`CLAIMED_BYTES`] of
/// its trace file; None when they are not a trace's.
pub fn claimed(header: &[u8]) -> Option<u64> {
    (header.len() >= CLAIMED_BYTES && &header[..8] == MAGIC).then(|| u64_at(header, 16))
}

/// Parse the bytes of a trace file.
pub fn parse(bytes: &[u8]) -> Result<ServerTrace, ServerTraceError> {
    if bytes.len() < HEADER_BYTES {
        return Err(ServerTraceError::Short(bytes.len()));
    }
    if &bytes[..8] != MAGIC {
        return Err(ServerTraceError::Magic);
    }
    let capacity = u64_at(bytes, 8);
    let claimed = claimed(bytes).expect("a header with the magic");
    let page_size = u64_at(bytes, 24);
    let pool_frames = u64_at(bytes, 32);
    let need = (capacity as usize)
        .checked_mul(RECORD_BYTES)
        .and_then(|n| n.checked_add(HEADER_BYTES));
    if need.is_none_or(|n| bytes.len() < n) {
        return Err(ServerTraceError::Truncated {
            capacity,
            bytes: bytes.len(),
        });
    }
    let kept = claimed.min(capacity);
    let mut events = Vec::with_capacity(kept as usize);
    let mut unwritten = 0;
    for i in 0..kept {
        let at = HEADER_BYTES + i as usize * RECORD_BYTES;
        let op_byte = bytes[at + 4];
        if op_byte == 0 {
            unwritten += 1;
            continue;
        }
        let op = ServerOp::from_byte(op_byte).ok_or(ServerTraceError::UnknownOp {
            record: i,
            op: op_byte,
        })?;
        let space = u64::from(u32_at(bytes, at + 8));
        let page_no = u64::from(u32_at(bytes, at + 12));
        events.push(ServerEvent {
            seq: i,
            t_ms: u32_at(bytes, at),
            op,
            page: (space << 32) | page_no,
        });
    }
    Ok(ServerTrace {
        page_size,
        pool_frames,
        lost: claimed - kept,
        unwritten,
        events,
    })
}

impl ServerTrace {
    /// The records from the first one stamped `from_ms` or later to the end.
    pub fn records_from_ms(&self, from_ms: u32) -> Range<u64> {
        let first = self
            .events
            .iter()
            .find(|e| e.t_ms >= from_ms)
            .map_or(u64::MAX, |e| e.seq);
        first..u64::MAX
    }
}

/// Page requests and the ones that missed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Requests {
    /// page requests
    pub gets: u64,
    /// requests that had to read the page
    pub misses: u64,
}

impl Requests {
    /// `100 * (1 - misses / gets)`; None without requests.
    pub fn hit_ratio_pct(&self) -> Option<f64> {
        (self.gets > 0).then(|| 100.0 * (1.0 - self.misses as f64 / self.gets as f64))
    }
}

/// The server's trace replayed through one policy.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ServerReplay {
    /// the policy replayed
    pub policy: PolicyKind,
    /// what the server measured on the counted records
    pub server: Requests,
    /// what the model gives on the same requests
    pub model: Requests,
    /// the server's hit ratio, in percent
    pub server_hit_ratio_pct: Option<f64>,
    /// the model's hit ratio, in percent
    pub model_hit_ratio_pct: Option<f64>,
    /// blocks the server moved to the LRU head (made young, a sweep move or a boundary move), in the counted records
    pub server_young: u64,
    /// blocks the server evicted, in the counted records
    pub server_evictions: u64,
    /// read-ahead reads: pages the server read that no request missed
    pub server_read_ahead: u64,
    /// the model's counters at the end (the whole trace)
    pub model_counters: Counters,
}

/// What one record of the server's trace gives the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// the record
    pub record: ServerEvent,
    /// the model's events for it, in order (none, one, or a read and then
    /// an access)
    pub events: Vec<Event>,
    /// a request the server missed (it did not hold the page)
    pub server_miss: bool,
    /// a request the model missed (it reads the page)
    pub model_miss: bool,
    /// a read no request was waiting for (read-ahead)
    pub read_ahead: bool,
}

/// The model's events for the server's records, record by record: a
/// request the model does not hold is the model's miss, and the model reads
/// the page; an LRU access is the model's access (a lookup if a lookup
/// record announced it); a read no request was waiting for (read-ahead) is
/// a read; a created page is created at the LRU head; a freed page is freed
/// when the model holds it; a cleaner batch is a batch. The server's own
/// evictions and moves are the model's to decide: they give no event. The
/// model's clock starts at 1 s (an access stamped 0 means "never") and
/// never goes back (concurrent threads can claim records slightly out of
/// time order).
pub struct ServerStream<'a> {
    records: std::slice::Iter<'a, ServerEvent>,
    last_t: u64,
    /// what the server holds, from its reads, creations and evictions
    held: HashSet<u64>,
    /// pages requested while the server did not hold them: their read is no read-ahead
    awaited: HashSet<u64>,
    /// pages whose next access a lookup record announced
    looked_up: HashSet<u64>,
}

impl<'a> ServerStream<'a> {
    /// The stream of `trace`'s records, from the first.
    pub fn new(trace: &'a ServerTrace) -> ServerStream<'a> {
        ServerStream {
            records: trace.events.iter(),
            last_t: 0,
            held: HashSet::new(),
            awaited: HashSet::new(),
            looked_up: HashSet::new(),
        }
    }

    /// The next record and the model's events for it, given which pages
    /// the model holds now; `None` after the last record.
    pub fn next_step(&mut self, resident: impl Fn(u64) -> bool) -> Option<Step> {
        let e = *self.records.next()?;
        self.last_t = self.last_t.max(u64::from(e.t_ms) + 1000);
        let at = |op| Event {
            t_ms: self.last_t,
            op,
        };
        let mut step = Step {
            record: e,
            events: Vec::new(),
            server_miss: false,
            model_miss: false,
            read_ahead: false,
        };
        let miss = !resident(e.page);
        match e.op {
            ServerOp::Get => {
                step.server_miss = !self.held.contains(&e.page);
                if step.server_miss {
                    self.awaited.insert(e.page);
                }
                step.model_miss = miss;
                if miss {
                    step.events.push(at(Op::Read(e.page)));
                }
            }
            ServerOp::Access => {
                if miss {
                    step.events.push(at(Op::Read(e.page)));
                }
                step.events.push(at(access_op(&mut self.looked_up, e.page)));
            }
            ServerOp::Lookup => {
                self.looked_up.insert(e.page);
            }
            ServerOp::Read => {
                self.held.insert(e.page);
                if !self.awaited.remove(&e.page) {
                    step.read_ahead = true;
                    if miss {
                        step.events.push(at(Op::Read(e.page)));
                    }
                }
            }
            ServerOp::Evict => {
                self.held.remove(&e.page);
            }
            ServerOp::Free => {
                if !miss {
                    step.events.push(at(Op::Free(e.page)));
                }
            }
            ServerOp::Cleaner => step.events.push(at(Op::Cleaner)),
            ServerOp::Young | ServerOp::BoundaryMove | ServerOp::Flag => {}
            ServerOp::Create => {
                self.held.insert(e.page);
                if miss {
                    step.events.push(at(Op::Create(e.page)));
                }
            }
        }
        Some(step)
    }
}

/// Replay the server's page stream through `kind`, as [`ServerStream`]
/// gives it to the model. The server's misses are its requests for a page
/// it did not hold (its reads and evictions say what it held); its
/// evictions and moves are counted. Every record is replayed; only the
/// requests of `counted` (record numbers, as a measured window's two reads
/// of the header's claimed count give them) are counted.
pub fn replay(
    kind: PolicyKind,
    cfg: Config,
    trace: &ServerTrace,
    counted_records: Range<u64>,
) -> Result<ServerReplay, ModelError> {
    let mut model = crate::new_model(kind, cfg)?;
    let (mut gets, mut server_misses, mut model_misses) = (0, 0, 0);
    let (mut young, mut evictions, mut read_ahead) = (0, 0, 0);
    let mut stream = ServerStream::new(trace);
    while let Some(step) = stream.next_step(|page| model.is_resident(page)) {
        for event in &step.events {
            model.apply(event)?;
        }
        if !counted_records.contains(&step.record.seq) {
            continue;
        }
        match step.record.op {
            ServerOp::Get => {
                gets += 1;
                server_misses += u64::from(step.server_miss);
                model_misses += u64::from(step.model_miss);
            }
            ServerOp::Read => read_ahead += u64::from(step.read_ahead),
            ServerOp::Evict => evictions += 1,
            // the server's moves are the model's to decide: counted only
            ServerOp::Young | ServerOp::BoundaryMove => young += 1,
            _ => {}
        }
    }
    let server = Requests {
        gets,
        misses: server_misses,
    };
    let counted = Requests {
        gets,
        misses: model_misses,
    };
    Ok(ServerReplay {
        policy: kind,
        server_hit_ratio_pct: server.hit_ratio_pct(),
        model_hit_ratio_pct: counted.hit_ratio_pct(),
        server,
        model: counted,
        server_young: young,
        server_evictions: evictions,
        server_read_ahead: read_ahead,
        model_counters: model.counters(),
    })
}

/// The model's op for the server's access to `page`: a lookup if a lookup
/// record announced it (and that announcement is spent), else an access.
fn access_op(looked_up: &mut HashSet<u64>, page: u64) -> Op {
    if looked_up.remove(&page) {
        Op::Lookup(page)
    } else {
        Op::Access(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(capacity: u64, records: &[(u32, u8, u32, u32)], claimed: u64) -> Vec<u8> {
        let mut b = vec![0u8; HEADER_BYTES + capacity as usize * RECORD_BYTES];
        b[..8].copy_from_slice(MAGIC);
        b[8..16].copy_from_slice(&capacity.to_le_bytes());
        b[16..24].copy_from_slice(&claimed.to_le_bytes());
        b[24..32].copy_from_slice(&16384u64.to_le_bytes());
        for (i, &(t, op, space, page)) in records.iter().enumerate() {
            let at = HEADER_BYTES + i * RECORD_BYTES;
            b[at..at + 4].copy_from_slice(&t.to_le_bytes());
            b[at + 4] = op;
            b[at + 8..at + 12].copy_from_slice(&space.to_le_bytes());
            b[at + 12..at + 16].copy_from_slice(&page.to_le_bytes());
        }
        b
    }

    fn requests(gets: u64, misses: u64) -> Requests {
        Requests { gets, misses }
    }

    #[test]
    fn records_are_read_with_their_page_ids_and_losses() {
        let b = file(3, &[(5, 1, 7, 9), (6, 3, 7, 9)], 5);
        let t = parse(&b).unwrap();
        assert_eq!(t.page_size, 16384);
        assert_eq!(t.lost, 2);
        assert_eq!(t.unwritten, 1, "the third claimed record was never written");
        assert_eq!(
            t.events,
            vec![
                ServerEvent {
                    seq: 0,
                    t_ms: 5,
                    op: ServerOp::Get,
                    page: (7 << 32) | 9
                },
                ServerEvent {
                    seq: 1,
                    t_ms: 6,
                    op: ServerOp::Read,
                    page: (7 << 32) | 9
                },
            ]
        );
    }

    #[test]
    fn a_lookup_record_makes_the_next_access_of_its_page_a_lookup() {
        let mut looked_up = HashSet::new();
        looked_up.insert(7);
        assert_eq!(access_op(&mut looked_up, 8), Op::Access(8));
        assert_eq!(access_op(&mut looked_up, 7), Op::Lookup(7));
        assert_eq!(access_op(&mut looked_up, 7), Op::Access(7), "spent");
        let t = parse(&file(2, &[(0, 9, 1, 7), (0, 2, 1, 7)], 2)).unwrap();
        assert_eq!(t.events[0].op, ServerOp::Lookup);
    }

    #[test]
    fn a_bad_file_says_what_is_wrong() {
        assert_eq!(parse(b"ILTRACE1"), Err(ServerTraceError::Short(8)));
        let mut b = file(1, &[], 0);
        b[0] = b'X';
        assert_eq!(parse(&b), Err(ServerTraceError::Magic));
        let b = file(2, &[], 0);
        assert_eq!(
            parse(&b[..HEADER_BYTES + RECORD_BYTES]),
            Err(ServerTraceError::Truncated {
                capacity: 2,
                bytes: HEADER_BYTES + RECORD_BYTES
            })
        );
        let b = file(1, &[(0, 12, 0, 0)], 1);
        assert_eq!(
            parse(&b),
            Err(ServerTraceError::UnknownOp { record: 0, op: 12 })
        );
    }

    #[test]
    fn the_replay_counts_what_the_server_and_the_model_missed() {
        // 100 distinct pages requested twice in a row each: the server
        // missed the first request of each (it read the page), so does the
        // model; the read-ahead of page 500 is no miss
        let mut recs = vec![(0, 3, 1, 500)];
        for p in 0..100 {
            recs.push((p, 1, 1, p));
            recs.push((p, 3, 1, p));
            recs.push((p, 2, 1, p));
            recs.push((p, 1, 1, p));
            recs.push((p, 2, 1, p));
        }
        let n = recs.len() as u64;
        let t = parse(&file(n, &recs, n)).unwrap();
        let cfg = Config {
            pool_pages: 64,
            ..Config::default()
        };
        for kind in [PolicyKind::Eager, PolicyKind::Lazy] {
            let r = replay(kind, cfg, &t, 0..u64::MAX).unwrap();
            assert_eq!(r.server, requests(200, 100));
            assert_eq!(r.model, requests(200, 100));
            assert_eq!(r.server_read_ahead, 1);
            assert_eq!(r.server_hit_ratio_pct, Some(50.0));
        }
        // counted from 50 ms: the warm-up is replayed but not counted
        let r = replay(PolicyKind::Eager, cfg, &t, t.records_from_ms(50)).unwrap();
        assert_eq!(r.server, requests(100, 50));
        assert_eq!(r.model.gets, 100);
    }

    #[test]
    fn a_pool_smaller_than_the_servers_misses_where_the_server_hit() {
        // two laps over 100 pages: the server held them all (it read each
        // once and evicted none), a 64-frame model loses each before its
        // second request
        let mut recs = Vec::new();
        for lap in 0..2u32 {
            for p in 0..100u32 {
                let t = lap * 100 + p;
                recs.push((t, 1, 1, p));
                if lap == 0 {
                    recs.push((t, 3, 1, p));
                }
                recs.push((t, 2, 1, p));
            }
        }
        let n = recs.len() as u64;
        let t = parse(&file(n, &recs, n)).unwrap();
        let cfg = Config {
            pool_pages: 64,
            ..Config::default()
        };
        let r = replay(PolicyKind::Eager, cfg, &t, 0..u64::MAX).unwrap();
        assert_eq!(r.server, requests(200, 100));
        assert_eq!(r.model, requests(200, 200));
        assert_eq!(r.server_read_ahead, 0);
        assert_eq!(r.model_hit_ratio_pct, Some(0.0));
    }

    #[test]
    fn a_page_created_in_the_pool_is_held_and_hits() {
        // a new page is never read: both sides hold it from its creation
        let recs = [
            (0, 8, 1, 7),
            (1, 1, 1, 7),
            (1, 2, 1, 7),
            (2, 1, 1, 8),
            (2, 3, 1, 8),
        ];
        let n = recs.len() as u64;
        let t = parse(&file(n, &recs, n)).unwrap();
        let cfg = Config {
            pool_pages: 64,
            ..Config::default()
        };
        for kind in [PolicyKind::Classic, PolicyKind::Eager, PolicyKind::Lazy] {
            let r = replay(kind, cfg, &t, 0..u64::MAX).unwrap();
            assert_eq!(r.server, requests(2, 1), "{kind}");
            assert_eq!(r.model, requests(2, 1), "{kind}");
        }
    }
}
