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
///
/// When several conditions fire at one step, every one is reported
/// ([`Outcome::conditions`]) and the kind with the highest
/// [`precedence`](VerdictKind::precedence) is the outcome's: `Failed`, then
/// `Cancelled`, then `Done`, then `Stuck`, then `Exhausted`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VerdictKind {
    /// The task is complete: a done sequence, a done signal, a done-if option, a
    /// `FINAL` answer, a tool, a text, a confidence or reward threshold.
    Done,
    /// A budget ran out (turns, tokens, time); the answer, if any, is partial.
    Exhausted,
    /// The run repeats itself (loop evidence in the fired condition's detail); the
    /// answer, if any, is partial.
    Stuck,
    /// Errors (consecutive errors, a negative reward streak); the answer, if any, is
    /// partial, never an error message.
    Failed,
    /// The run's cancel handle was set; the answer, if any, is partial.
    Cancelled,
}

impl VerdictKind {
    /// The rank that decides an outcome's kind when several conditions fire at one
    /// step: higher wins.
    ///
    /// `Failed` and `Cancelled` come first: the caller must act on them whatever else
    /// happened. `Done` comes before `Stuck` and `Exhausted`: an answer that arrived
    /// on the last allowed turn is an answer (Langroid's order, where a done sequence
    /// is checked before `max_turns`), and loop evidence explains a budget that ran
    /// out, so `Stuck` beats `Exhausted`.
    ///
    /// ```
    /// use doneseq::VerdictKind;
    ///
    /// let mut kinds = [VerdictKind::Exhausted, VerdictKind::Done, VerdictKind::Failed];
    /// kinds.sort_by_key(|k| std::cmp::Reverse(k.precedence()));
    /// assert_eq!(kinds, [VerdictKind::Failed, VerdictKind::Done, VerdictKind::Exhausted]);
    /// ```
    #[must_use]
    pub const fn precedence(self) -> u8 {
        match self {
            VerdictKind::Exhausted => 0,
            VerdictKind::Stuck => 1,
            VerdictKind::Done => 2,
            VerdictKind::Cancelled => 3,
            VerdictKind::Failed => 4,
        }
    }

    /// The lowercase name: `done`, `exhausted`, `stuck`, `failed`, `cancelled`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            VerdictKind::Done => "done",
            VerdictKind::Exhausted => "exhausted",
            VerdictKind::Stuck => "stuck",
            VerdictKind::Failed => "failed",
            VerdictKind::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for VerdictKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
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
    /// A stop condition of [`crate::TaskConfig::stop`] fired: its canonical text
    /// (the first, in the tree's order, of those with the outcome's kind). Every
    /// condition that fired is in [`Outcome::conditions`].
    Condition(String),
}

/// One stop condition that fired, with its evidence.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct FiredCondition {
    /// Its canonical text, e.g. `max_turns(10)`.
    pub condition: String,
    /// Where it is in the tree: child indices from the root (empty for the root).
    pub path: Vec<usize>,
    /// The kind of stop it stands for.
    pub kind: VerdictKind,
    /// The step at which it (last) fired: this step, or an earlier one for a child
    /// of a latched `&`.
    pub at: u64,
    /// What it saw, e.g. `turns 10/10` or `tool calculator requested`.
    pub detail: String,
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
    /// The run did not finish (`Exhausted`, `Stuck`, `Failed`, `Cancelled`): the
    /// latest non-empty LLM response without an error, as the best answer so far.
    Partial,
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
    /// message is never an answer). For a stop condition of another kind than
    /// `Done`, the partial answer ([`AnswerSource::Partial`]), if any.
    pub answer: Option<Answer>,
    /// Every stop condition that fired at this step (tree order), with evidence;
    /// empty when the task has none or only Langroid's rules fired.
    pub conditions: Vec<FiredCondition>,
}
