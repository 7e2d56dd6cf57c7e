//! What a stop rule would do to a corpus of recorded runs: each transcript checked to
//! its end ([`check_file`], [`check_files`] in parallel, [`check_reader`] for any
//! input; [`Runs`] a corpus's runs found once, an Inspect eval log's samples each a
//! run, to count and check them without finding them again), summarized as a
//! [`RunSummary`] (where the rule stops it, what fired, the steps and tokens to the
//! stop against the recorded run's, whether the stop cuts the run before its
//! recorded final answer), and the totals of many as an [`Aggregate`].
//!
//! Summaries and aggregates (de)serialize, and aggregates [`merge`](Aggregate::merge):
//! a corpus too large for one machine is checked as a map over its runs and a sum of
//! their aggregates, in whatever engine distributes the map (the Python package's
//! `doneseq.dask` does it with Dask).
//!
//! ```
//! use doneseq::corpus::{Aggregate, check_reader};
//! use doneseq::transcript::{Format, Reader};
//! use doneseq::{Monitor, TaskConfig, VerdictKind};
//!
//! let mut config = TaskConfig::default();
//! config.max_turns = Some(2);
//! let monitor = Monitor::new(config)?;
//! let log = "{\"role\": \"user\", \"content\": \"6*7?\"}\n\
//!            {\"role\": \"llm\", \"content\": \"thinking\"}\n\
//!            {\"role\": \"llm\", \"content\": \"still thinking\"}\n\
//!            {\"role\": \"llm\", \"content\": \"42\"}\n";
//! let run = check_reader(&monitor, "run-1", Reader::new(log.as_bytes(), Format::Jsonl));
//! assert_eq!(run.kind, Some(VerdictKind::Exhausted));
//! assert_eq!((run.at, run.steps, run.recorded_steps), (Some(2), 2, 3));
//! assert!(run.early, "the recorded answer came after the stop");
//!
//! let total: Aggregate = [run].iter().collect();
//! assert_eq!((total.exhausted, total.steps_saved, total.stopped_early), (1, 1, 1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod check;
mod sources;
mod summary;

pub use check::{
    check_file, check_files, check_files_in_turn, check_files_with, check_reader, check_reader_with,
};
pub use sources::{Runs, count_runs, is_one_transcript};
pub use summary::{Aggregate, NO_MESSAGE, RunSummary, overrun_warning};
