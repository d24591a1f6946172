//! `cargo xtask ffi check --tree <spec> [--variant V]`: the model against a
//! tree's real headers, as they are or with a patch variant applied.
//!
//! Configures the tree (patched, for a variant other than `base`) without
//! building it (cmake with the project's options
//! and the compile-commands export, then `make GenError`), then runs the
//! `ffi` crate's tests against it: bindgen's layout, the g++ shim's layout and
//! `lru_model::layout` must agree, and the header-inline decision functions
//! must agree with `lru_model::decide` on seeded random inputs. The tests
//! print the layouts and the number of cases they checked.

use crate::variant::SourceChange;
use anyhow::{bail, Context, Result};
use lru_model::series::Engine;

/// Subcommands of `cargo xtask ffi`.
#[derive(clap::Subcommand, Debug)]
pub enum FfiAction {
    /// Configure a tree (headers only) and check the model's layout and
    /// decisions against its real headers.
    Check {
        /// The tree, e.g. `debian:mariadb=1:10.11.18-0+deb12u1`.
        #[arg(long)]
        tree: String,
        /// A patch variant of patches/patches.toml (`gate`, `fixed`,
        /// `mdev-41036`, ...), applied before the headers are read.
        #[arg(long, default_value = "base")]
        variant: String,
    },
}

pub fn run(cmd: FfiAction) -> Result<()> {
    match cmd {
        FfiAction::Check { tree, variant } => check(&tree, &variant),
    }
}

fn check(spec: &str, variant: &str) -> Result<()> {
    let tree =
        crate::tree::resolve(spec).with_context(|| format!("cannot resolve tree `{spec}`"))?;
    tree.source_for("the ffi check needs a source tree")?;
    // resolved as `cargo xtask build` resolves it: base is the tree as it is
    // (reported as fixed on a tree that carries the fix); another variant is
    // its patch from the table, refused on a tree it makes no sense on
    let resolved = crate::variant::resolve(&Default::default(), &tree, variant)?;
    let patch = match resolved.change {
        SourceChange::None => None,
        SourceChange::Patch(p) => Some(p),
        SourceChange::CherryPick(_) => bail!(
            "variant `{variant}` picks commits: check a tree that carries them instead \
             (git:<url>#<commit>)"
        ),
    };
    let label = format!("{} {}", tree.version, resolved.label);
    let configured = crate::build::configure_with(&tree, patch.as_ref())
        .with_context(|| format!("cannot configure {label} for the ffi check"))?;
    // the generation is detected again by the ffi crate on the same headers;
    // this line says what the patch made of the tree
    let header = configured.src.join("storage/innobase/include/buf0buf.h");
    let fixed = crate::dims::carries_upstream_fix(
        &std::fs::read_to_string(&header)
            .with_context(|| format!("cannot read {}", header.display()))?,
    );
    eprintln!(
        "ffi check: {label} (series {}, commit {}{}), {}, source {}, configured in {}",
        tree.series,
        short(&tree.id),
        patch
            .as_ref()
            .map(|p| format!(" + {} sha256 {}", p.file.display(), short(&p.sha256)))
            .unwrap_or_default(),
        match (tree.series.engine, fixed) {
            (Engine::MySql, _) => "MySQL's classic LRU rule",
            (Engine::MariaDb, true) => "carries the MDEV-33966 fix",
            (Engine::MariaDb, false) => "without the MDEV-33966 fix",
        },
        configured.src.display(),
        configured.build.display()
    );
    // --nocapture so the layouts and case counts reach the log; one thread so
    // the tables are not interleaved; no fail-fast so a layout mismatch does
    // not hide the decision results (or the other way round).
    let args = [
        "test",
        "--release",
        "--package",
        "ffi",
        "--no-fail-fast",
        "--",
        "--nocapture",
        "--test-threads=1",
    ];
    eprintln!(
        "$ INNODB_SRC={} INNODB_BUILD={} cargo {}",
        configured.src.display(),
        configured.build.display(),
        args.join(" ")
    );
    // Stream the test output (cargo's progress included) and keep the
    // lines that say what was checked, for the summary.
    let mut summary = Vec::new();
    let finished = crate::util::Command::new("cargo")
        .args(args)
        .dir(crate::util::repo_root())
        .env("INNODB_SRC", configured.src.display().to_string())
        .env("INNODB_BUILD", configured.build.display().to_string())
        .stream(None, |line| {
            println!("{line}");
            if let Some(fact) = summary_line(line) {
                summary.push(fact.to_string());
            }
        })
        .context("cannot run `cargo test -p ffi`")?;
    let status = finished.status;
    eprintln!("\nffi check summary for {label} ({spec}):");
    for fact in &summary {
        eprintln!("  {fact}");
    }
    if !status.success() {
        bail!(
            "ffi check failed for {label} ({spec}): the model disagrees with the tree's headers, \
             or the probes could not be built; see the test output above"
        );
    }
    eprintln!("ffi check passed for {label} ({spec})");
    Ok(())
}

/// The part of a test output line worth repeating in the summary: layout
/// agreement and decision case counts (the tests print them with the tree's
/// version first).
fn summary_line(line: &str) -> Option<&str> {
    let fact = line.split_once(" ... ").map_or(line, |(_, rest)| rest);
    let fact = fact
        .split_once("; C++ outcomes")
        .map_or(fact, |(head, _)| head);
    (fact.contains("cases checked") || fact.contains("layout quantities agree")).then_some(fact)
}

fn short(id: &str) -> &str {
    &id[..12.min(id.len())]
}

#[cfg(test)]
mod tests {
    use super::summary_line;

    #[test]
    fn summary_keeps_counts_and_drops_outcomes() {
        let line = "test peek_if_young_matches_the_model ... 10.11.18: buf_page_peek_if_young: \
                    200000 cases checked (seed 0x1), 0 mismatches; C++ outcomes {\"false\": 1}";
        assert_eq!(
            summary_line(line),
            Some("10.11.18: buf_page_peek_if_young: 200000 cases checked (seed 0x1), 0 mismatches")
        );
        assert_eq!(
            summary_line("10.5.23: 36 layout quantities agree across bindgen, g++ and the model"),
            Some("10.5.23: 36 layout quantities agree across bindgen, g++ and the model")
        );
        assert_eq!(summary_line("test result: ok. 6 passed"), None);
    }
}
