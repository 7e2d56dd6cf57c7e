//! Replaying a whole transcript in one call: every step's classification and verdict,
//! for tests (snapshot them with insta) and for tools that show a run.

use super::{Classification, Monitor, Outcome, RunState, Verdict};
use crate::Message;

/// One message of a replay.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct ReplayStep {
    /// The message's index in the input (system messages included).
    pub index: usize,
    /// Whether it is the task's input ([`crate::TaskConfig::input`]).
    pub input: bool,
    /// Its step index; `None` for a system message or the task's input, which are
    /// not steps.
    pub step: Option<u64>,
    /// How it was classified: the events it satisfies; `None` when it is not a step.
    pub classification: Option<Classification>,
    /// What the monitor said after it.
    pub verdict: Verdict,
}

/// A whole transcript replayed ([`Monitor::replay`]).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Replay {
    /// Every message, in order; the replay goes on after the first stop, as a
    /// recorded transcript may (every later match is shown).
    pub steps: Vec<ReplayStep>,
    /// The first stop, if the run stopped.
    pub outcome: Option<Outcome>,
}

impl Monitor {
    /// Replays `messages` in a fresh run: each message's classification and the
    /// verdict after it, and the first stop. It allocates per message (the
    /// classification is owned): use [`Monitor::observe`] in an agent loop.
    ///
    /// A test can snapshot a whole run (with insta's `yaml` feature):
    ///
    /// ```
    /// use doneseq::{Message, Monitor, TaskConfig, ToolCall};
    ///
    /// let monitor = Monitor::new(TaskConfig::from_dsl(["calc: T[calculator], A"])?)?;
    /// let replay = monitor.replay(&[
    ///     Message::user("What is 6 times 7?"),
    ///     Message::llm("").with_tool_call(ToolCall::new("calculator", r#"{"x": "6*7"}"#)),
    ///     Message::agent("42"),
    /// ]);
    /// let labels = replay.steps[1].classification.as_ref().map(|c| c.labels());
    /// assert_eq!(labels.unwrap(), ["T", "T[calculator]"]);
    /// assert_eq!(replay.outcome.unwrap().answer.unwrap().text, "42");
    /// // insta::assert_yaml_snapshot!(replay);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn replay<'m, 't: 'm, I>(&self, messages: I) -> Replay
    where
        I: IntoIterator<Item = &'m Message<'t>>,
    {
        let mut run: RunState = self.start();
        let mut outcome = None;
        let steps = messages
            .into_iter()
            .enumerate()
            .map(|(index, message)| {
                let is_step = self.is_step(&run, message);
                let input = self.is_input(&run, message);
                let step = is_step.then_some(run.steps());
                let classification = is_step.then(|| self.classify(message));
                let verdict = self.observe(&mut run, message);
                if outcome.is_none() {
                    outcome = verdict.outcome().cloned();
                }
                ReplayStep {
                    index,
                    input,
                    step,
                    classification,
                    verdict,
                }
            })
            .collect();
        Replay { steps, outcome }
    }
}
