//! The profile stage: the stacks behind the numbers. `perf` samples where
//! the server spends its CPU; `pmp` (gdb) samples what every thread is
//! doing, waits included. Both fold their stacks (`record::FoldedStacks`);
//! the workload stage runs them under load in a cell's profile pass.
//! `callgrind` counts instructions where no PMU does, for the cost pass;
//! `page_trace` reads a traced server's page stream and replays it through
//! the LRU model.

pub mod callgrind;
pub mod page_trace;
pub mod perf;
pub mod pmp;
