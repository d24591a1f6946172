//! `cargo xtask`: parse the command line, take the locks the command
//! needs, run it, turn the outcome into an exit status. A table of
//! contents: each command is one struct in `tasks/` with the lock it needs
//! and its `run`.

use clap::{Parser, Subcommand};
use xtask::children;
use xtask::tasks::{self, Needs};

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
    Mtr(tasks::MtrCommand),
    Report(tasks::ReportCommand),
    Docs(tasks::DocsCommand),
    Repro(tasks::ReproCommand),
    Validate(tasks::ValidateCommand),
    Bisect(tasks::BisectCommand),
    Model(tasks::ModelCommand),
    Ffi(tasks::FfiCommand),
    Oracle(tasks::OracleCommand),
    Patch(tasks::PatchCommand),
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
        Task::Mtr(c) => run(c.needs(), || c.run()),
        Task::Report(c) => run(tasks::ReportCommand::NEEDS, || c.run()),
        Task::Docs(c) => run(tasks::DocsCommand::NEEDS, || c.run()),
        Task::Repro(c) => run(tasks::ReproCommand::NEEDS, || c.run()),
        Task::Model(c) => run(tasks::ModelCommand::NEEDS, || c.run()),
        Task::Ffi(c) => run(tasks::FfiCommand::NEEDS, || c.run()),
        Task::Oracle(c) => run(tasks::OracleCommand::NEEDS, || c.run()),
        Task::Patch(c) => run(tasks::PatchCommand::NEEDS, || c.run()),
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
