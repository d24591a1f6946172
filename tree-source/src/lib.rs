//! What the build scripts of `ffi` and `oracle` read from a configured
//! tree: which generation of InnoDB's buffer pool it has
//! ([`Generation`]), its version ([`read_version`]), the flags the server compiles one of its files with
//! ([`server_flags`], from `compile_commands.json`), and function
//! definitions copied verbatim from its source, each after a `#line` that
//! points at the tree's file ([`find_definition`], [`copy_definitions`]).
//!
//! Nothing here rewrites the tree's code: what a shim runs is the tree's
//! own text, and a compile error names the tree's file and line.

mod definition;
mod env;
mod flags;
mod generation;
mod version;

pub use definition::{copy_definitions, find_definition, squash, strip_comments, Definition};
pub use env::tree_from_env;
pub use flags::server_flags;
pub use generation::{read_generation, Generation};
pub use version::read_version;
