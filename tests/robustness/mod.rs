//! Reliability (issue 7): input from outside never panics, hangs or grows without
//! bound, and nothing is silently dropped. The fuzz targets in `fuzz/` share
//! `checks.rs` with the properties here; `regressions.rs` replays what fuzzing found.

pub(crate) mod checks;
mod concurrency;
mod limits;
pub(crate) mod props;
mod regex_budget;
mod regressions;
mod soak;
