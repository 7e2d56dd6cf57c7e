//! One run's summary and the totals of many.

use crate::VerdictKind;
use crate::monitor::Monitor;
use crate::monitor::RunState;

/// One recorded run checked by a stop rule: where the rule stops it, what fired, and
/// what the recorded run did after that.
///
/// Serialized, it is one line of `doneseq check --json` over a corpus: `path`, `kind`
/// (`null` when the rule never stops the run), `at`, `fired`, `answer`, `steps`,
/// `tokens`, `recorded_steps`, `recorded_tokens`, `early`, then `error` and `warning`
/// when there are any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
#[non_exhaustive]
pub struct RunSummary {
    /// The transcript's name: its path, as given.
    pub path: String,
    /// The stop's kind, or `None` when the rule never stops the run.
    pub kind: Option<VerdictKind>,
    /// The index of the message the rule stops at (the task's input and system
    /// messages count as messages, not as steps).
    pub at: Option<usize>,
    /// What fired: `sequence N "..."` for a done sequence, else the leading
    /// condition's text.
    pub fired: Option<String>,
    /// The stop's answer, if it has one.
    pub answer: Option<String>,
    /// Steps up to and including the stop (the whole run's when it never stops).
    pub steps: u64,
    /// Tokens (input and output) of those steps.
    pub tokens: u64,
    /// The recorded run's steps: all of them.
    pub recorded_steps: u64,
    /// The recorded run's tokens: all of them.
    pub recorded_tokens: u64,
    /// Whether the recorded final answer (the last step with a `FINAL`, else the last
    /// model answer without tool calls) comes after the stop: the rule would cut the
    /// run too early.
    pub early: bool,
    /// Why the transcript could not be read (with its line or position); the other
    /// fields then hold what was read before it and the run counts as an error.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub error: Option<String>,
    /// What the run's searches past a content pattern's backtracking limit say, if
    /// any (see [`overrun_warning`]); or, for a transcript that held no message,
    /// [`NO_MESSAGE`].
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub warning: Option<String>,
}

impl RunSummary {
    /// An empty summary of the run named `path`.
    #[must_use]
    pub fn new(path: impl Into<String>) -> RunSummary {
        RunSummary {
            path: path.into(),
            ..RunSummary::default()
        }
    }

    /// Whether the transcript could not be read.
    #[must_use]
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Whether two rules' runs of one transcript stop differently: at another
    /// message, with another kind or answer, or one failed to read.
    #[must_use]
    pub fn differs(&self, other: &RunSummary) -> bool {
        (self.kind, self.at, &self.answer, &self.error)
            != (other.kind, other.at, &other.answer, &other.error)
    }

    /// One line: how and where it stopped, what fired and its answer; `not stopped`;
    /// or the error.
    #[must_use]
    pub fn verdict(&self) -> String {
        if let Some(error) = &self.error {
            return format!("error: {error}");
        }
        match (self.kind, self.at) {
            (Some(kind), Some(at)) => format!(
                "{kind} at message {at}: {} (answer: {})",
                self.fired.as_deref().unwrap_or("?"),
                self.answer
                    .as_deref()
                    .map_or_else(|| "none".to_owned(), |a| format!("{a:?}"))
            ),
            _ => "not stopped".to_owned(),
        }
    }
}

/// The totals over a corpus: runs by kind, steps and tokens to the stop, what the
/// stops save against the recorded runs, the runs stopped before their recorded final
/// answer.
///
/// Built by [`Aggregate::add`] (or `collect` over summaries) and summed by
/// [`Aggregate::merge`]: the totals of a corpus are the same whichever way its runs
/// are split and the parts merged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
#[non_exhaustive]
pub struct Aggregate {
    /// Every run, errors included.
    pub runs: usize,
    /// Runs whose transcript could not be read: not counted in any field below.
    pub errors: usize,
    /// Runs stopped `done`.
    pub done: usize,
    /// Runs stopped `exhausted`.
    pub exhausted: usize,
    /// Runs stopped `stuck`.
    pub stuck: usize,
    /// Runs stopped `failed`.
    pub failed: usize,
    /// Runs stopped `cancelled`.
    pub cancelled: usize,
    /// Runs the rule never stops.
    pub never_stopped: usize,
    /// Runs stopped before their recorded final answer.
    pub stopped_early: usize,
    /// Steps up to the stop (a whole run where it never stops), over all runs.
    pub steps_to_stop: u64,
    /// Tokens up to the stop, over all runs.
    pub tokens_to_stop: u64,
    /// Recorded steps after the stops: what the rule saves.
    pub steps_saved: u64,
    /// Recorded tokens after the stops.
    pub tokens_saved: u64,
}

impl Aggregate {
    /// Counts one run.
    pub fn add(&mut self, run: &RunSummary) {
        self.runs += 1;
        if run.error.is_some() {
            self.errors += 1;
            return;
        }
        match run.kind {
            Some(VerdictKind::Done) => self.done += 1,
            Some(VerdictKind::Exhausted) => self.exhausted += 1,
            Some(VerdictKind::Stuck) => self.stuck += 1,
            Some(VerdictKind::Failed) => self.failed += 1,
            Some(VerdictKind::Cancelled) => self.cancelled += 1,
            None => self.never_stopped += 1,
        }
        self.stopped_early += usize::from(run.early);
        self.steps_to_stop += run.steps;
        self.tokens_to_stop += run.tokens;
        // Saturating: a summary read back from outside may claim fewer recorded steps
        // than steps to its stop.
        self.steps_saved += run.recorded_steps.saturating_sub(run.steps);
        self.tokens_saved += run.recorded_tokens.saturating_sub(run.tokens);
    }

    /// Adds the totals of another part of the corpus.
    pub fn merge(&mut self, other: &Aggregate) {
        // Destructured, so that a new field cannot be left out of the sum.
        let Aggregate {
            runs,
            errors,
            done,
            exhausted,
            stuck,
            failed,
            cancelled,
            never_stopped,
            stopped_early,
            steps_to_stop,
            tokens_to_stop,
            steps_saved,
            tokens_saved,
        } = other;
        self.runs += runs;
        self.errors += errors;
        self.done += done;
        self.exhausted += exhausted;
        self.stuck += stuck;
        self.failed += failed;
        self.cancelled += cancelled;
        self.never_stopped += never_stopped;
        self.stopped_early += stopped_early;
        self.steps_to_stop += steps_to_stop;
        self.tokens_to_stop += tokens_to_stop;
        self.steps_saved += steps_saved;
        self.tokens_saved += tokens_saved;
    }
}

impl<'a> Extend<&'a RunSummary> for Aggregate {
    fn extend<I: IntoIterator<Item = &'a RunSummary>>(&mut self, runs: I) {
        for run in runs {
            self.add(run);
        }
    }
}

impl<'a> FromIterator<&'a RunSummary> for Aggregate {
    fn from_iter<I: IntoIterator<Item = &'a RunSummary>>(runs: I) -> Aggregate {
        let mut total = Aggregate::default();
        total.extend(runs);
        total
    }
}

/// The warning of a transcript that held no message ([`RunSummary::warning`]): its
/// summary, "never stopped" after 0 steps, would otherwise read as a verdict on a
/// run, where the file holds none (an empty log, or one of records that describe a
/// run, such as a Claude Code sub-agent's metadata beside its log).
pub const NO_MESSAGE: &str =
    "no message in it (empty, blank lines, or only records that are not messages)";

/// What a run's searches past the backtracking limit of a `C[...]` pattern with
/// look-around or backreferences say: the pattern, on how many messages, the first
/// (`first`, a message index, when the caller kept it). Each such search was taken as
/// no match, which must not go unnoticed. `None` when no search passed the limit.
#[must_use]
pub fn overrun_warning(monitor: &Monitor, run: &RunState, first: Option<usize>) -> Option<String> {
    let (_, pattern) = monitor.pattern_overrun(run)?;
    let count = run.pattern_overruns();
    Some(format!(
        "C[{pattern}] passed its backtracking limit ({} steps) on {count} message{}, first \
         at message {}: taken as no match there",
        crate::text::MAX_BACKTRACK,
        if count == 1 { "" } else { "s" },
        first.map_or_else(|| "?".to_owned(), |i| i.to_string()),
    ))
}
