//! `TaskInput`: which messages of a run are the task's input rather than its steps.
//!
//! In Langroid the message given to `Task.run()` is not a step: it never enters the
//! sequence that done sequences match, and it is not a turn (`single_round` ends one
//! step after it). A recorded chat log, though, starts with the system prompt and the
//! user's question. So by default the user messages before the first response are the
//! task's input: a `U` cannot match the question, and `max_turns` and `single_round`
//! count what Langroid counts.

use std::fmt;

use crate::{Message, Role};

/// Which messages are the task's input, not steps: nothing matches them, no
/// condition sees them, and they are not counted. A system message is never a step,
/// whatever this says; a message marked with [`Message::with_input`] (a transcript's
/// `"input"`) is what its mark says, except under [`TaskInput::Steps`].
///
/// ```
/// use doneseq::{Message, Monitor, TaskConfig};
/// use doneseq::stop::TaskInput;
///
/// let log = [Message::system("Be brief."), Message::user("What is 6 x 7?"), Message::llm("42")];
/// let mut config = TaskConfig::default();
/// config.single_round = true;
///
/// // Langroid's meaning: the question is the input, the model's reply the first step.
/// let monitor = Monitor::new(config.clone())?;
/// let replay = monitor.replay(&log);
/// assert_eq!(replay.outcome.unwrap().answer.unwrap().text, "42");
///
/// // Every message a step (AutoGen's counting): the question is step 0.
/// config.input = TaskInput::Steps;
/// let replay = Monitor::new(config)?.replay(&log);
/// assert_eq!(replay.outcome.unwrap().answer.unwrap().text, "What is 6 x 7?");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum TaskInput {
    /// The user messages before the first step (after any system messages), and the
    /// messages marked as input. What a chat log holds: the question, then the work.
    #[default]
    Leading,
    /// Only the messages marked as input: every other message is a step. A recorded
    /// Langroid `response_sequence` (which holds no input, so that a leading user
    /// message there is the user's step), or a log that starts in the middle of a task.
    Marked,
    /// No message is input: the task's message is a step like any other. AutoGen's
    /// counting: its termination conditions see the task message, and
    /// `MaxMessageTermination` counts it.
    Steps,
}

impl TaskInput {
    /// Every mode, in the order of their documentation.
    pub const ALL: [TaskInput; 3] = [TaskInput::Leading, TaskInput::Marked, TaskInput::Steps];

    /// The mode's name in configurations and on the command line: `leading`,
    /// `marked` or `steps`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            TaskInput::Leading => "leading",
            TaskInput::Marked => "marked",
            TaskInput::Steps => "steps",
        }
    }

    /// Whether `message` is the task's input, observed after `steps` steps: the one
    /// place of the rule.
    #[must_use]
    pub fn is_input(self, message: &Message, steps: u64) -> bool {
        match self {
            TaskInput::Steps => false,
            TaskInput::Marked => message.input() == Some(true),
            TaskInput::Leading => message.input().unwrap_or_else(|| {
                steps == 0 && message.role() == Role::User && !message.is_no_response()
            }),
        }
    }
}

impl fmt::Display for TaskInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A task input mode that is none of `leading`, `marked` and `steps`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown task input mode '{0}' (expected leading, marked or steps)")]
pub struct TaskInputError(pub String);

impl std::str::FromStr for TaskInput {
    type Err = TaskInputError;

    fn from_str(s: &str) -> Result<TaskInput, TaskInputError> {
        TaskInput::ALL
            .into_iter()
            .find(|mode| mode.name() == s)
            .ok_or_else(|| TaskInputError(s.to_owned()))
    }
}
