//! What the monitor says after a message: go on, or stop, why, and with which answer.

use std::ops::RangeInclusive;

use crate::Role;
use crate::stop::VerdictKind;

/// The verdict after one message.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(tag = "verdict", content = "outcome", rename_all = "snake_case")
)]
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

/// A node of a monitor's lowered condition tree ([`crate::TaskConfig::lowered`]), by
/// its index in pre-order (0 is the root). [`crate::Monitor::condition`] gives its
/// condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct NodeId(pub u32);

impl NodeId {
    /// The index in pre-order.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// Why the task stopped: the leading condition that fired, named after the task
/// option it came from (in Langroid's order), or the node of the stop tree.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(tag = "type", content = "value", rename_all = "snake_case")
)]
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
    /// The run's cancel handle was set (honoured whether or not the stop tree has a
    /// `cancelled` condition).
    Cancelled,
    /// A node of [`crate::TaskConfig::stop`] fired: the first, in the tree's order, of
    /// those with the outcome's kind. Its details are in [`Outcome::conditions`]
    /// ([`Outcome::leading`]).
    Condition(NodeId),
}

/// One condition that fired, with its evidence.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct FiredCondition {
    /// Its node in the monitor's lowered tree.
    pub node: NodeId,
    /// Which built-in (or combinator) it is.
    pub id: crate::stop::ConditionId,
    /// Its canonical text, e.g. `max_turns(10)`.
    pub text: std::sync::Arc<str>,
    /// Where it is in the task's stop tree: child indices from its root (empty for
    /// the root, and for a condition that came from a task option).
    pub path: Vec<usize>,
    /// The task option it came from, as the reason it gives; `None` for a node of
    /// the stop tree.
    pub rule: Option<StopReason>,
    /// The kind of stop it stands for.
    pub kind: VerdictKind,
    /// The step at which it (last) fired: this step, or an earlier one for a child
    /// of a latched `&`.
    pub at: u64,
    /// What it saw; its `Display` is a short sentence (`turns 10/10`,
    /// `calculator requested`).
    pub evidence: super::Evidence,
}

/// One done sequence that matched: which, and the steps it matched.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SequenceMatch {
    /// The sequence's index in the task's list.
    pub sequence: usize,
    /// The step indices its elements matched, first to last (consecutive).
    pub matched: RangeInclusive<u64>,
}

/// Where an answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
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
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Answer {
    /// The answer text.
    pub text: String,
    /// Where it came from.
    pub source: AnswerSource,
}

/// Why and where a task ended, with its answer.
///
/// With the `serde` feature it serializes as
/// `{"kind", "reason", "at", "fired", "answer", "conditions"}`: `kind` a lowercase
/// word, `reason` `{"type": "sequence", "value": 0}` (snake-case names of
/// [`StopReason`]; `condition` holds a node id), `fired` the sequences that matched
/// (`{"sequence", "matched": {"start", "end"}}`), `answer` `{"text", "source"}` or
/// null, and each condition `{"node", "id", "text", "path", "rule", "kind", "at",
/// "evidence", "detail"}` where `evidence` is tagged by `type` and `detail` is its
/// sentence. It deserializes from the same shape (`detail` is derived from the
/// evidence, so it is accepted and not read), so an outcome can be stored beside a
/// run's checkpoint and read back as the typed value.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
    /// Every condition that fired at this step, in the lowered tree's order (the
    /// task options' in Langroid's order, then the stop tree's, then the cancel
    /// handle), with evidence.
    pub conditions: Vec<FiredCondition>,
}

impl Outcome {
    /// The condition that decided the outcome: the first with its kind.
    #[must_use]
    pub fn leading(&self) -> Option<&FiredCondition> {
        self.conditions.iter().find(|c| c.kind == self.kind)
    }
}
