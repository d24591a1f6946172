//! The decisions: from a results directory's runs to numbers that decide
//! (per cell the counted runs, the comparisons with a baseline, paired
//! where the runs were interleaved, the noise floors, the differences a
//! margin is held to) and to each question's verdict as numbers. Below the
//! reports and the runner, which both read these typed values: the report
//! renders them in words, the runner repeats what they leave undecided.

pub mod analysis;
pub mod change;
pub mod difference;
pub mod verdict;
