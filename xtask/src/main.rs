//! `cargo xtask`: parse the command line, take the locks the command
//! needs, run it, turn the outcome into an exit status. A table of
//! contents: each command is one struct with its `run` in `tasks/` (or
//! in the task module named here).

use clap::{Parser, Subcommand};
use xtask::tasks::{self, Needs};
use xtask::{children, ffi, model, mtr, patch_check};

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "Validate InnoDB buffer pool patches on real MariaDB builds"
)]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand)]
enum Task {
    Matrix(tasks::MatrixCommand),
    Tree(tasks::TreeCommand),
    Build(tasks::BuildCommand),
    /// Run MariaDB's own tests (mysql-test-run) on one variant's build, with
    /// our tests from mtr/suite/ copied in; `mtr report DIR` rewrites the
    /// report of a results directory.
    Mtr(mtr::MtrArgs),
    Report(tasks::ReportCommand),
    Docs(tasks::DocsCommand),
    Repro(tasks::ReproCommand),
    Validate(tasks::ValidateCommand),
    Bisect(tasks::BisectCommand),
    /// The LRU model: replay a trace, simulate a scenario, benchmark.
    Model {
        #[command(subcommand)]
        command: model::ModelCommand,
    },
    /// Check the model's layouts and decisions against a tree's real headers.
    Ffi {
        #[command(subcommand)]
        command: ffi::FfiCommand,
    },
    /// Patches: check every patch of patches/patches.toml on every tree.
    Patch {
        #[command(subcommand)]
        command: patch_check::PatchCommand,
    },
    Soak(tasks::SoakCommand),
    Test(tasks::TestCommand),
}

/// The exit status of a usage error, for every command: 3, as validate's
/// errors, so that a CI script never reads a typo as an answer.
const USAGE_ERROR: i32 = 3;

fn main() {
    // first: a signal during a build or a bootstrap is handled too
    children::install_signal_handler();
    // the environment, read once: every stage sees what the command saw
    xtask::environment::current();
    let cli = Cli::try_parse().unwrap_or_else(|e| {
        if !e.use_stderr() {
            e.exit() // --help, --version
        }
        let _ = e.print();
        // clap's 2 would read as validate's "undecided"
        std::process::exit(USAGE_ERROR)
    });
    let code = match cli.command {
        // validate answers with its exit status
        Task::Validate(c) => c.run(),
        // bisect too: found, nothing to bisect, undecided, error
        Task::Bisect(c) => c.run(),
        Task::Matrix(c) => run(c.needs(), || c.run()),
        Task::Tree(c) => run(tasks::TreeCommand::NEEDS, || c.run()),
        Task::Build(c) => run(tasks::BuildCommand::NEEDS, || c.run()),
        Task::Mtr(args) => run(args.needs(), || mtr::run_cli(args)),
        Task::Report(c) => run(tasks::ReportCommand::NEEDS, || c.run()),
        Task::Docs(c) => run(tasks::DocsCommand::NEEDS, || c.run()),
        Task::Repro(c) => run(tasks::ReproCommand::NEEDS, || c.run()),
        Task::Model { command } => run(Needs::Nothing, || model::run(command)),
        Task::Ffi { command } => run(Needs::Cache, || ffi::run(command)),
        Task::Patch { command } => run(Needs::Cache, || patch_check::run(command)),
        Task::Soak(c) => run(tasks::SoakCommand::NEEDS, || c.run()),
        Task::Test(c) => run(tasks::TestCommand::NEEDS, || c.run()),
    };
    std::process::exit(code);
}

/// Runs `task` under the locks it needs: 0 when it succeeds, 130 or 143
/// after SIGINT or SIGTERM, 1 on any other error.
fn run(needs: Needs, task: impl FnOnce() -> anyhow::Result<()>) -> i32 {
    let result = needs.acquire().and_then(|_lock| task());
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        return children::interruption_in(&e).map_or(1, |i| i.exit_code());
    }
    match children::interrupted() {
        Some(i) => {
            eprintln!("error: {i}");
            i.exit_code()
        }
        None => 0,
    }
}
