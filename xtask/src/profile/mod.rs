//! The profile stage: the stacks behind the numbers. `perf` samples where
//! the server spends its CPU; `pmp` (gdb) samples what every thread is
//! doing, waits included. Both fold their stacks (`record::FoldedStacks`);
//! the workload stage runs them under load in a cell's profile pass.
//! `callgrind` counts instructions where no PMU does, for the cost pass.

pub mod callgrind;
pub mod perf;
pub mod pmp;
