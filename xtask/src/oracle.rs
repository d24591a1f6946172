//! `cargo xtask oracle check --tree <spec> [--variant V]`: the LRU model
//! against the tree's own LRU code, event by event.
//!
//! Configures the tree (patched, for a variant other than `base`) without
//! building it, then runs the `oracle` crate's tests against it: the crate
//! compiles the tree's `buf0lru.cc` with the server's flags, copies the
//! page cleaner's LRU batch and the read path from the tree's source, and
//! replays random and held traces through the model and the tree's code,
//! comparing the two pools after every event. The tests print what they
//! compared; the first difference names the event, the C++ entry point and
//! the blocks around it.

use anyhow::{Context, Result};

/// Subcommands of `cargo xtask oracle`.
#[derive(clap::Subcommand, Debug)]
pub enum OracleAction {
    /// Configure a tree (no build) and replay traces through the LRU model
    /// and the tree's own LRU code, comparing them after every event.
    Check {
        /// The tree, e.g. `debian:mariadb=1:10.11.18-0+deb12u1`.
        #[arg(long)]
        tree: crate::tree::TreeSpec,
        /// A patch variant of patches/patches.toml, applied before the
        /// tree's code is compiled: one the LRU model has a policy for
        /// (base, fixed, our remedies, old-surplus), which the code is
        /// compared with.
        #[arg(long, default_value = "base")]
        variant: String,
        /// A traced server's page trace (`page-trace.bin` of a `traced`
        /// build of the same tree, docs/model.md) to replay too, with the
        /// pool of its header.
        #[arg(long)]
        server_trace: Option<std::path::PathBuf>,
        /// The traced run's `innodb_lru_scan_depth` (with --server-trace).
        #[arg(long, default_value_t = 1536, requires = "server_trace")]
        lru_scan_depth: u32,
    },
}

pub fn run(cmd: OracleAction) -> Result<()> {
    match cmd {
        OracleAction::Check {
            tree,
            variant,
            server_trace,
            lru_scan_depth,
        } => {
            let mut inputs = crate::tree_check::TestInputs::default();
            if let Some(path) = server_trace {
                // read here, so that a bad path is this command's error
                let path = std::fs::canonicalize(&path)
                    .with_context(|| format!("--server-trace {}", path.display()))?;
                inputs
                    .env
                    .push(("ORACLE_SERVER_TRACE", path.display().to_string()));
                inputs
                    .env
                    .push(("ORACLE_LRU_SCAN_DEPTH", lru_scan_depth.to_string()));
                inputs.include_ignored = true;
            }
            let tree = crate::tree_check::configure_tree(&tree, &variant, "oracle check", true)?;
            // the model policy a matrix records for this build, which the
            // tree's code is compared with
            let policy = tree
                .model_policy
                .context("configure_tree refuses a variant without a model policy")?;
            // (oracle::MODEL_POLICY_ENV)
            inputs.env.push(("ORACLE_MODEL_POLICY", policy.to_string()));
            crate::tree_check::run_tree_tests(
                "oracle",
                "oracle check",
                &tree,
                &inputs,
                summary_line,
            )
        }
    }
}

/// The lines of the oracle's tests worth repeating in the summary: what
/// each replay compared.
fn summary_line(line: &str) -> Option<&str> {
    let fact = line.split_once(" ... ").map_or(line, |(_, rest)| rest);
    (fact.contains(" agree") || fact.contains("events compared") || fact.contains("is caught"))
        .then_some(fact)
}

#[cfg(test)]
mod tests {
    use super::summary_line;

    #[test]
    fn summary_keeps_what_was_compared() {
        assert_eq!(
            summary_line("10.11.18: oracle: 120000 events compared, 9 blocks, 0 differences"),
            Some("10.11.18: oracle: 120000 events compared, 9 blocks, 0 differences")
        );
        assert_eq!(
            summary_line("test the_held_trace_agrees ... 10.11.18: example.jsonl: 8 events agree"),
            Some("10.11.18: example.jsonl: 8 events agree")
        );
        assert_eq!(summary_line("test result: ok. 3 passed"), None);
    }
}
