//! The subcommands: one struct per command with its flags, the lock it
//! needs and one `run`. `main.rs` parses, takes the lock and dispatches;
//! the work is in the stages, the runner and the reports.

mod bisect;
mod build;
mod docs;
mod ffi;
mod matrix;
mod model;
mod mtr;
mod oracle;
mod patch;
mod report;
mod repro;
mod soak;
mod test;
mod tree;
mod validate;

pub use bisect::BisectCommand;
pub use build::BuildCommand;
pub use docs::DocsCommand;
pub use ffi::FfiCommand;
pub use matrix::MatrixCommand;
pub use model::ModelCommand;
pub use mtr::{MtrAction, MtrCommand};
pub use oracle::OracleCommand;
pub use patch::PatchCommand;
pub use report::ReportCommand;
pub use repro::ReproCommand;
pub use soak::SoakCommand;
pub use test::TestCommand;
pub use tree::TreeCommand;
pub use validate::ValidateCommand;

/// The locks a command needs before it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// reads only: results, the repository, a tree already fetched
    Nothing,
    /// builds or runs servers: one such command at a time per cache
    Cache,
}

impl Needs {
    /// Takes what is needed; the returned guard holds it until dropped.
    pub fn acquire(self) -> anyhow::Result<Option<crate::lock::Lock>> {
        match self {
            Needs::Nothing => Ok(None),
            Needs::Cache => crate::lock::cache("the tool's cache (builds and servers)").map(Some),
        }
    }
}

/// The exit status of a command that answers with one (`validate`);
/// every other command exits 0, or 1 on error.
pub type ExitCode = i32;
