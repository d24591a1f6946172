//! The page trace of a traced server (`patches/11.8/traced.patch`): the
//! number of records it has claimed, read from the file's header around a
//! measured run; the file read whole; and after the server stopped, the
//! replay of the whole stream through lru-model's policies at the server's
//! pool size and settings, counted over the measured run's records (the
//! matrix and `cargo xtask model replay-server` both replay through here).

use crate::record::{IntervalCounts, ModelReplay, MyCnf, StayRow, TraceReplay, TraceStays};
use anyhow::{anyhow, Context, Result};
use lru_model::server_trace::{self, ServerReplay, ServerTrace, CLAIMED_BYTES};
use lru_model::{Config, PolicyKind};
use std::fs::File;
use std::io::Read;
use std::ops::Range;
use std::path::Path;
use std::time::Instant;

/// The records a traced server has claimed so far; None when there is no
/// trace (an untraced build ignores `INNODB_LAB_TRACE` and writes none).
pub fn claimed(path: &Path) -> Option<u64> {
    let mut head = [0u8; CLAIMED_BYTES];
    File::open(path).ok()?.read_exact(&mut head).ok()?;
    server_trace::claimed(&head)
}

/// A trace file read and parsed whole; an error names the file.
pub fn read(path: &Path) -> Result<ServerTrace> {
    let shown = path.display();
    let bytes =
        std::fs::read(path).with_context(|| format!("cannot read the page trace {shown}"))?;
    server_trace::parse(&bytes).map_err(|e| anyhow!("{shown}: {e}"))
}

/// The model's pool size: the frames the trace's header gives.
pub fn pool_pages(trace: &ServerTrace, path: &Path) -> Result<u32> {
    u32::try_from(trace.pool_frames).with_context(|| {
        format!(
            "{}: {} frames in its header",
            path.display(),
            trace.pool_frames
        )
    })
}

/// One replay of `trace` (read from `path`) per policy, counting `records`.
pub fn replay_each(
    trace: &ServerTrace,
    path: &Path,
    cfg: Config,
    kinds: &[PolicyKind],
    records: Range<u64>,
) -> Result<Vec<ServerReplay>> {
    kinds
        .iter()
        .map(|&kind| {
            server_trace::replay(kind, cfg, trace, records.clone()).map_err(|e| {
                anyhow!(
                    "{}: the {kind} model refused the trace: {e}",
                    path.display()
                )
            })
        })
        .collect()
}

/// The server's defaults where its my.cnf says nothing.
const OLD_PCT: u32 = 37;
const OLD_BLOCKS_TIME_MS: u32 = 1000;
const LRU_SCAN_DEPTH: u32 = 1536;

fn setting(cnf: &MyCnf, name: &str, default: u32) -> Result<u32> {
    let value = cnf
        .settings
        .iter()
        .rev()
        .find(|(k, _)| crate::settings::normalise(k) == name)
        .map(|(_, v)| v);
    match value {
        None => Ok(default),
        Some(v) => v
            .parse()
            .map_err(|_| anyhow!("my.cnf sets {name} = {v:?}, which the replay cannot read")),
    }
}

/// Replay `trace` (read from `path`) through the eager and lazy policies,
/// counting the requests of the records `window` (the claimed counts at
/// the measured run's start and end).
pub fn replay(
    trace: &ServerTrace,
    path: &Path,
    window: (u64, u64),
    cnf: &MyCnf,
) -> Result<TraceReplay> {
    let start = Instant::now();
    let old_pct = setting(cnf, "innodb_old_blocks_pct", OLD_PCT)?;
    let old_blocks_time_ms = setting(cnf, "innodb_old_blocks_time", OLD_BLOCKS_TIME_MS)?;
    let lru_scan_depth = setting(cnf, "innodb_lru_scan_depth", LRU_SCAN_DEPTH)?;
    let cfg = Config {
        pool_pages: pool_pages(trace, path)?,
        old_pct,
        old_blocks_time_ms,
        lru_scan_depth,
        ..Config::default()
    };
    let kinds = [PolicyKind::Eager, PolicyKind::Lazy];
    let replays = replay_each(trace, path, cfg, &kinds, window.0..window.1)?
        .into_iter()
        .map(|r| ModelReplay {
            policy: r.policy.to_string(),
            requests: r.server.gets,
            server_misses: r.server.misses,
            model_misses: r.model.misses,
            server_hit_ratio_pct: r.server_hit_ratio_pct,
            model_hit_ratio_pct: r.model_hit_ratio_pct,
        })
        .collect();
    Ok(TraceReplay {
        lost: trace.lost,
        pool_frames: trace.pool_frames,
        old_pct,
        old_blocks_time_ms,
        lru_scan_depth,
        replays,
        stays: Some(stays(trace, window)),
        replay_seconds: start.elapsed().as_secs_f64(),
    })
}

// the record names its intervals by their length
const _: () = assert!(lru_model::stays::INTERVAL_MS == 2000);

/// What the server did to the pages it lost in the records `window`.
fn stays(trace: &ServerTrace, window: (u64, u64)) -> TraceStays {
    let s = lru_model::stays::stays(trace, window.0..window.1);
    TraceStays {
        requests: s.gets,
        misses: s.misses,
        first_reads: s.first_reads,
        classes: s
            .classes
            .iter()
            .map(|r| StayRow {
                class: r.class.name().to_string(),
                evictions: r.evictions,
                rereads: r.rereads,
                median_gap_ms: r.median_gap_ms,
                median_stay_ms: r.median_stay_ms,
            })
            .collect(),
        by_2s: s
            .by_interval
            .iter()
            .map(|i| IntervalCounts {
                requests: i.gets,
                misses: i.misses,
            })
            .collect(),
        moves: s.moves,
        pages_moved: s.pages_moved,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_file_or_another_file_is_no_trace() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(claimed(&dir.path().join("absent")), None);
        let other = dir.path().join("other");
        std::fs::write(&other, [7u8; 64]).unwrap();
        assert_eq!(claimed(&other), None);
        let mut head = vec![0u8; 64];
        head[..8].copy_from_slice(server_trace::MAGIC);
        head[16..24].copy_from_slice(&42u64.to_le_bytes());
        let traced = dir.path().join("page-trace.bin");
        std::fs::write(&traced, &head).unwrap();
        assert_eq!(claimed(&traced), Some(42));
    }

    #[test]
    fn the_settings_come_from_my_cnf_and_a_bad_one_is_named() {
        let cnf = |pairs: &[(&str, &str)]| MyCnf {
            settings: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            scaled: vec![],
            datadir_on_tmpfs: None,
            base: Default::default(),
        };
        let c = cnf(&[
            ("innodb-lru-scan-depth", "128"),
            ("innodb_old_blocks_time", "0"),
        ]);
        assert_eq!(setting(&c, "innodb_lru_scan_depth", 1536).unwrap(), 128);
        assert_eq!(setting(&c, "innodb_old_blocks_time", 1000).unwrap(), 0);
        assert_eq!(setting(&c, "innodb_old_blocks_pct", 37).unwrap(), 37);
        let err = setting(
            &cnf(&[("innodb_old_blocks_pct", "3x")]),
            "innodb_old_blocks_pct",
            37,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("innodb_old_blocks_pct = \"3x\""), "{err}");
    }
}
