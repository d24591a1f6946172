//! Trace replay: JSON Lines events, one a line:
//! `{"t_ms": <u64, never decreasing>, "op": "read"|"access"|"lookup"|"free"|"cleaner"|"create", "page": <u64>}`
//! (no `page` for `cleaner`). Blank lines are skipped.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::policy::PolicyKind;
use crate::pool::{Config, Counters, LruModel, ModelError};

/// What happens to the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// a page not in the pool is read into a frame and added to the old sublist
    Read(u64),
    /// a resident page is accessed, as a B-tree leaf access is
    Access(u64),
    /// a resident page is accessed by a search from the root of an index
    /// (or an adaptive hash index hit), not by a scan moving on to it
    Lookup(u64),
    /// a resident page is freed and released as the policy releases freed pages
    Free(u64),
    /// one page-cleaner LRU batch
    Cleaner,
    /// a page not in the pool is created in a frame and added at the head
    /// of the LRU (`buf_page_create_low()`: a new page, never read)
    Create(u64),
}

/// One trace event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// the time, in ms; never decreasing
    pub t_ms: u64,
    /// what happens
    pub op: Op,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    t_ms: u64,
    op: String,
    page: Option<u64>,
}

/// A trace line that cannot be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based line number
    pub line: usize,
    /// what is wrong
    pub kind: TraceErrorKind,
}

/// What is wrong with a trace line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceErrorKind {
    /// not a JSON object with the expected fields
    Syntax(String),
    /// an `op` other than read, access, free, cleaner and create
    UnknownOp(String),
    /// `read`, `access`, `free` or `create` without a `page`
    MissingPage(String),
    /// `cleaner` with a `page`
    UnexpectedPage,
    /// the model refused the event
    Model(ModelError),
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trace line {}: ", self.line)?;
        match &self.kind {
            TraceErrorKind::Syntax(why) => write!(f, "not a valid event: {why}"),
            TraceErrorKind::UnknownOp(op) => {
                write!(
                    f,
                    "unknown op {op:?}: expected \"read\", \"access\", \"free\", \"cleaner\" or \"create\""
                )
            }
            TraceErrorKind::MissingPage(op) => write!(f, "op {op:?} needs a \"page\""),
            TraceErrorKind::UnexpectedPage => write!(f, "op \"cleaner\" takes no \"page\""),
            TraceErrorKind::Model(e @ ModelError::NotResident(_))
            | TraceErrorKind::Model(e @ ModelError::Freed(_)) => {
                write!(f, "cannot access or free: {e}")
            }
            TraceErrorKind::Model(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TraceError {}

/// Parse one line; `Ok(None)` for a blank line.
pub fn parse_line(line_no: usize, line: &str) -> Result<Option<Event>, TraceError> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    let err = |kind| TraceError {
        line: line_no,
        kind,
    };
    let raw: RawEvent =
        serde_json::from_str(line).map_err(|e| err(TraceErrorKind::Syntax(e.to_string())))?;
    let page = |op: &str| {
        raw.page
            .ok_or_else(|| err(TraceErrorKind::MissingPage(op.to_string())))
    };
    let op = match raw.op.as_str() {
        "read" => Op::Read(page("read")?),
        "access" => Op::Access(page("access")?),
        "lookup" => Op::Lookup(page("lookup")?),
        "free" => Op::Free(page("free")?),
        "cleaner" if raw.page.is_some() => return Err(err(TraceErrorKind::UnexpectedPage)),
        "cleaner" => Op::Cleaner,
        "create" => Op::Create(page("create")?),
        other => return Err(err(TraceErrorKind::UnknownOp(other.to_string()))),
    };
    Ok(Some(Event { t_ms: raw.t_ms, op }))
}

/// The result of a replay, with the keys in the order issue 2 lists them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReplayOutput {
    /// `n_pages_made_young`
    pub made_young: u64,
    /// `n_pages_not_made_young`
    pub not_made_young: u64,
    /// `buf_pool.mutex` acquisitions on the access path
    pub access_mutex_acquisitions: u64,
    /// blocks evicted from the LRU
    pub evictions: u64,
    /// `UT_LIST_GET_LEN(buf_pool.LRU)`
    pub lru_len: u32,
    /// `buf_pool.LRU_old_len`
    pub old_len: u32,
    /// `UT_LIST_GET_LEN(buf_pool.free)`
    pub free_len: u32,
    /// resident page ids from the MRU end to the LRU end
    pub lru: Vec<u64>,
}

impl ReplayOutput {
    /// The output of a model in its current state.
    pub fn of(model: &dyn LruModel) -> Self {
        let Counters {
            made_young,
            not_made_young,
            access_mutex_acquisitions,
            evictions,
            ..
        } = model.counters();
        ReplayOutput {
            made_young,
            not_made_young,
            access_mutex_acquisitions,
            evictions,
            lru_len: model.lru_len(),
            old_len: model.old_len(),
            free_len: model.free_len(),
            lru: model.lru_pages(),
        }
    }
}

/// An error before or during a replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// the configuration was refused
    Config(ModelError),
    /// a line was refused
    Trace(TraceError),
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Config(e) => write!(f, "{e}"),
            ReplayError::Trace(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReplayError {}

/// Replay trace lines (1-based numbering) on a fresh pool of the given policy.
pub fn replay<'a, I>(kind: PolicyKind, cfg: Config, lines: I) -> Result<ReplayOutput, ReplayError>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut model = crate::new_model(kind, cfg).map_err(ReplayError::Config)?;
    for (i, line) in lines.into_iter().enumerate() {
        let line_no = i + 1;
        if let Some(event) = parse_line(line_no, line).map_err(ReplayError::Trace)? {
            model.apply(&event).map_err(|e| {
                ReplayError::Trace(TraceError {
                    line: line_no,
                    kind: TraceErrorKind::Model(e),
                })
            })?;
        }
    }
    Ok(ReplayOutput::of(model.as_ref()))
}

/// Render events as trace lines (the inverse of [`parse_line`]).
pub fn to_line(event: &Event) -> String {
    let (op, page) = match event.op {
        Op::Read(p) => ("read", Some(p)),
        Op::Access(p) => ("access", Some(p)),
        Op::Lookup(p) => ("lookup", Some(p)),
        Op::Free(p) => ("free", Some(p)),
        Op::Cleaner => ("cleaner", None),
        Op::Create(p) => ("create", Some(p)),
    };
    match page {
        Some(p) => format!(r#"{{"t_ms":{},"op":"{op}","page":{p}}}"#, event.t_ms),
        None => format!(r#"{{"t_ms":{},"op":"{op}"}}"#, event.t_ms),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_op_and_skips_blank_lines() {
        assert_eq!(
            parse_line(1, r#"{"t_ms": 5, "op": "read", "page": 7}"#),
            Ok(Some(Event {
                t_ms: 5,
                op: Op::Read(7)
            }))
        );
        assert_eq!(
            parse_line(2, r#"{"t_ms": 6, "op": "cleaner"}"#),
            Ok(Some(Event {
                t_ms: 6,
                op: Op::Cleaner
            }))
        );
        assert_eq!(parse_line(3, "   "), Ok(None));
        let e = Event {
            t_ms: 9,
            op: Op::Free(3),
        };
        assert_eq!(parse_line(4, &to_line(&e)), Ok(Some(e)));
    }

    #[test]
    fn bad_lines_name_their_number_and_fault() {
        let msg = |line: &str| parse_line(12, line).unwrap_err().to_string();
        assert!(msg("{").starts_with("trace line 12: not a valid event"));
        assert!(msg(r#"{"t_ms":1,"op":"write","page":1}"#).contains("unknown op \"write\""));
        assert!(msg(r#"{"t_ms":1,"op":"access"}"#).contains("op \"access\" needs a \"page\""));
        assert!(msg(r#"{"t_ms":1,"op":"cleaner","page":3}"#).contains("takes no \"page\""));
        assert!(msg(r#"{"t_ms":-1,"op":"read","page":1}"#).contains("not a valid event"));
        assert!(msg(r#"{"t_ms":1,"op":"read","page":1,"x":2}"#).contains("unknown field"));
    }

    #[test]
    fn replay_errors_name_the_line_and_page() {
        let cfg = Config::default();
        let lines = [
            r#"{"t_ms":0,"op":"read","page":1}"#,
            "",
            r#"{"t_ms":1,"op":"access","page":2}"#,
        ];
        let err = replay(PolicyKind::Eager, cfg, lines)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "trace line 3: cannot access or free: page 2 is not resident in the buffer pool"
        );
        let lines = [
            r#"{"t_ms":5,"op":"read","page":1}"#,
            r#"{"t_ms":4,"op":"access","page":1}"#,
        ];
        let err = replay(PolicyKind::Lazy, cfg, lines)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "trace line 2: t_ms 4 is earlier than the previous t_ms 5"
        );
        let lines = [
            r#"{"t_ms":5,"op":"read","page":1}"#,
            r#"{"t_ms":6,"op":"read","page":1}"#,
        ];
        let err = replay(PolicyKind::Classic, cfg, lines)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("trace line 2: page 1 is already resident"),
            "{err}"
        );
    }
}
