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

use anyhow::Result;

/// Subcommands of `cargo xtask ffi`.
#[derive(clap::Subcommand, Debug)]
pub enum FfiAction {
    /// Configure a tree (headers only) and check the model's layout and
    /// decisions against its real headers.
    Check {
        /// The tree, e.g. `debian:mariadb=1:10.11.18-0+deb12u1`.
        #[arg(long)]
        tree: crate::tree::TreeSpec,
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

fn check(spec: &crate::tree::TreeSpec, variant: &str) -> Result<()> {
    let tree = crate::tree_check::configure_tree(spec, variant, "ffi check", false)?;
    let inputs = crate::tree_check::TestInputs::default();
    crate::tree_check::run_tree_tests("ffi", "ffi check", &tree, &inputs, summary_line)
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
