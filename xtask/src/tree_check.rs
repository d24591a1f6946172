//! What the checks of a tree's source share (`ffi check`, `oracle check`):
//! the tree resolved and configured, with a variant's patch, without a
//! build; then a crate's tests built against it, their output streamed.

use crate::variant::SourceChange;
use anyhow::{bail, Context, Result};
use lru_model::series::Engine;

/// A tree configured for a check of its source (headers and compile
/// commands, no build).
pub(crate) struct CheckedTree {
    /// the version and the variant, e.g. `10.11.18 fixed`
    pub label: String,
    /// the spec the user gave
    pub spec: String,
    /// the (patched) source root
    pub src: std::path::PathBuf,
    /// the configured build directory
    pub build: std::path::PathBuf,
    /// the LRU model's policy for this build, as a matrix records it for a
    /// run (`results::sweeps::model_policy`); None where the model has none
    /// (gate, clock)
    pub model_policy: Option<crate::dims::ModelPolicy>,
}

/// Resolve and configure the tree `spec` with `variant`'s patch for
/// `check` (the command's name, for messages), and say what it is. With
/// `needs_model_policy`, a variant the model has no policy for is refused
/// before anything is configured.
pub(crate) fn configure_tree(
    spec: &crate::tree::TreeSpec,
    variant: &str,
    check: &str,
    needs_model_policy: bool,
) -> Result<CheckedTree> {
    let tree =
        crate::tree::resolve(spec).with_context(|| format!("cannot resolve tree `{spec}`"))?;
    tree.source_for(&format!("the {check} needs a source tree"))?;
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
    let model_policy = crate::results::sweeps::model_policy(
        &tree,
        patch.as_ref().map(|p| p.file.as_path()),
        false,
    );
    if needs_model_policy && model_policy.is_none() {
        bail!(
            "the LRU model has no policy for {label} (a change whose rules it does not have: \
             gate, clock, a traced build), so the {check} has nothing to compare its code with"
        );
    }
    let configured = crate::build::configure_with(&tree, patch.as_ref())
        .with_context(|| format!("cannot configure {label} for the {check}"))?;
    // the generation is detected again by the checking crate on the same
    // headers; this line says what the patch made of the tree
    let header = configured.src.join("storage/innobase/include/buf0buf.h");
    let fixed = crate::dims::carries_upstream_fix(
        &std::fs::read_to_string(&header)
            .with_context(|| format!("cannot read {}", header.display()))?,
    );
    eprintln!(
        "{check}: {label} (series {}, commit {}{}), {}, source {}, configured in {}",
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
    Ok(CheckedTree {
        label,
        spec: spec.to_string(),
        src: configured.src,
        build: configured.build,
        model_policy,
    })
}

/// What a check adds to its crate's tests: environment variables, and
/// whether the tests ignored by default (those that need an input the
/// check was given) run too.
#[derive(Default)]
pub(crate) struct TestInputs {
    pub env: Vec<(&'static str, String)>,
    pub include_ignored: bool,
}

/// Run `package`'s tests built against `tree`, streaming their output and
/// repeating at the end the lines `summary` keeps.
pub(crate) fn run_tree_tests(
    package: &str,
    check: &str,
    tree: &CheckedTree,
    inputs: &TestInputs,
    summary: fn(&str) -> Option<&str>,
) -> Result<()> {
    // --nocapture so the tests' counts reach the log; one thread so the
    // lines are not interleaved; no fail-fast so one failure does not hide
    // the other tests' results.
    let mut args = vec![
        "test",
        "--release",
        "--package",
        package,
        "--no-fail-fast",
        "--",
        "--nocapture",
        "--test-threads=1",
    ];
    if inputs.include_ignored {
        args.push("--include-ignored");
    }
    let extra: String = inputs
        .env
        .iter()
        .map(|(k, v)| format!("{k}={v} "))
        .collect();
    eprintln!(
        "$ INNODB_SRC={} INNODB_BUILD={} {extra}cargo {}",
        tree.src.display(),
        tree.build.display(),
        args.join(" ")
    );
    let mut kept = Vec::new();
    let mut command = crate::util::Command::new("cargo")
        .args(args)
        .dir(crate::util::repo_root())
        .env("INNODB_SRC", tree.src.display().to_string())
        .env("INNODB_BUILD", tree.build.display().to_string());
    for (k, v) in &inputs.env {
        command = command.env(*k, v.clone());
    }
    let finished = command
        .stream(None, |line| {
            println!("{line}");
            if let Some(fact) = summary(line) {
                kept.push(fact.to_string());
            }
        })
        .with_context(|| format!("cannot run `cargo test -p {package}`"))?;
    let (label, spec) = (&tree.label, &tree.spec);
    eprintln!("\n{check} summary for {label} ({spec}):");
    for fact in &kept {
        eprintln!("  {fact}");
    }
    if !finished.status.success() {
        bail!(
            "{check} failed for {label} ({spec}): the model disagrees with the tree's code, or \
             the crate could not be built against it; see the test output above"
        );
    }
    eprintln!("{check} passed for {label} ({spec})");
    Ok(())
}

fn short(id: &str) -> &str {
    &id[..12.min(id.len())]
}
