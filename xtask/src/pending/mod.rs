#![allow(dead_code)]
#![allow(clippy::type_complexity)]
//! TEMPORARY: interfaces of issue 10 that other branches deliver (stats,
//! charts). Removed when they land on main.
pub mod charts;
pub mod stats;
