//! What the monitor says after a message: go on, or stop, why, and with which answer.

use std::ops::RangeInclusive;

use crate::Role;

/// The verdict after one message.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Nothing ends the task here.
    Continue,
    /// The task ends here.
    Stop(Outcome),
}

impl Verdict {
    /// Whether the task ends here.
    #[must_use]
    pub const fn is_stop(&self) -> bool {
        matches!(self, Verdict::Stop(_))
    }

    /// The outcome, if the task ends here.
    #[must_use]
    pub const fn outcome(&self) -> Option<&Outcome> {
        match self {
            Verdict::Stop(outcome) => Some(outcome),
            Verdict::Continue => None,
        }
    }
}

/// How a task ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum VerdictKind {
    /// The task is complete: a done sequence, a done signal, a done-if option.
    Done,
    /// A budget ran out (turns); the answer, if any, is partial.
    Exhausted,
}

/// Why the task stopped: the first rule that applied, in Langroid's order
/// (LANGROID.md (c)).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StopReason {
    /// `done_if_tool`: the LLM emitted a tool call.
    DoneIfTool,
    /// The done sequence with this index (in the task's list) matched.
    Sequence(usize),
    /// `recognize_string_signals`: the content says `DONE`.
    StringSignal,
    /// `done_if_response`: this role gave a valid response.
    DoneIfResponse(Role),
    /// `done_if_no_response`: this role gave no valid response.
    DoneIfNoResponse(Role),
    /// `single_round`: the first step ends the task.
    SingleRound,
    /// `max_turns`: this many steps were taken.
    MaxTurns(u64),
}

/// One done sequence that matched: which, and the steps it matched.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SequenceMatch {
    /// The sequence's index in the task's list.
    pub sequence: usize,
    /// The step indices its elements matched, first to last (consecutive).
    pub matched: RangeInclusive<u64>,
}

/// Where an answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AnswerSource {
    /// The content of the message that ended the task.
    Message,
    /// A `FINAL(...)` or `SUBMIT(...)` signal in that content, formatted by
    /// [`crate::answer::format_final_answer`].
    Final,
    /// A `FINAL_VAR(name)` signal: the text is the variable's *name*; its value lives
    /// in the agent's namespace ([`crate::answer::resolve_final_var`]).
    FinalVariable,
    /// That content with its `DONE` signal removed.
    DoneSignal,
}

/// The task's answer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Answer {
    /// The answer text.
    pub text: String,
    /// Where it came from.
    pub source: AnswerSource,
}

/// Why and where a task ended, with its answer.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Outcome {
    /// Done or exhausted.
    pub kind: VerdictKind,
    /// The rule that ended the task.
    pub reason: StopReason,
    /// The step index of the message that ended it.
    pub at: u64,
    /// Every done sequence that matched at this step, in list order (also when
    /// another rule came first).
    pub fired: Vec<SequenceMatch>,
    /// The answer: a `FINAL` answer in the content if there is one, else the
    /// content; `None` for a step without a response or with an error (an error
    /// message is never an answer).
    pub answer: Option<Answer>,
}
