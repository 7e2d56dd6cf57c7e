//! What a fired condition saw, typed; its `Display` is the sentence the CLI prints.

use std::fmt;
use std::ops::RangeInclusive;

use crate::Role;
use crate::stop::{TokenBudget, ToolPhase};

/// What a condition saw when it fired ([`crate::FiredCondition::evidence`]).
///
/// ```
/// use doneseq::Evidence;
///
/// assert_eq!(Evidence::Turns { taken: 10, limit: 10 }.to_string(), "turns 10/10");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "type", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Evidence {
    /// A done sequence matched these steps.
    Sequence {
        /// The steps its elements matched, first to last.
        matched: RangeInclusive<u64>,
    },
    /// The content carries a `FINAL` answer.
    Final,
    /// The content says `DONE`.
    DoneSignal,
    /// The run took this many steps of its limit.
    Turns {
        /// Steps taken.
        taken: u64,
        /// The limit.
        limit: u64,
    },
    /// This many chat messages (or, with `events`, messages) of the limit.
    Messages {
        /// Messages counted so far.
        counted: u64,
        /// The limit.
        limit: u64,
    },
    /// A stop message arrived.
    StopMessage,
    /// A handoff to this agent.
    Handoff {
        /// The agent handed to.
        target: String,
    },
    /// The model responded this many times of its limit.
    ModelCalls {
        /// Model responses so far.
        made: u64,
        /// The limit.
        limit: u64,
    },
    /// A token budget was reached.
    Tokens {
        /// The budget.
        budget: TokenBudgetEvidence,
        /// Tokens used so far: input plus output, input, output.
        total: u64,
        /// Input tokens used.
        input: u64,
        /// Output tokens used.
        output: u64,
    },
    /// The run's elapsed time reached its limit.
    Elapsed {
        /// Milliseconds elapsed.
        elapsed_ms: u64,
        /// The limit, in milliseconds.
        limit_ms: u64,
    },
    /// Steps in a row reported an error.
    Errors {
        /// How many.
        in_a_row: u64,
        /// The limit.
        limit: u64,
    },
    /// A tool was requested or executed.
    Tool {
        /// Its name, or `None` for any tool.
        name: Option<String>,
        /// Requested or executed.
        executed: bool,
    },
    /// An LLM response without tool calls.
    NoToolCalls,
    /// A regex matched this text of a message of this role.
    Text {
        /// The text the regex matched.
        matched: String,
        /// The message's role.
        role: Role,
    },
    /// A regex matched at an earlier step (a latched child of `&`).
    TextAt {
        /// The step.
        step: u64,
    },
    /// The confidence reached the threshold.
    Confidence {
        /// The confidence read.
        value: f64,
        /// The threshold.
        threshold: f64,
    },
    /// Below the threshold, a `FINAL` answer fired the confidence condition.
    ConfidenceFallback,
    /// The cumulative reward reached the threshold.
    Reward {
        /// The sum of the rewards.
        total: f64,
        /// The threshold.
        threshold: f64,
    },
    /// Rewards were negative too many steps in a row.
    NegativeRewards {
        /// How many in a row.
        streak: u64,
        /// The limit.
        limit: u64,
    },
    /// The latest steps repeat a cycle.
    Loop {
        /// The cycle's length in steps.
        period: u32,
        /// How many times it repeated.
        repeats: u32,
        /// The repeats the condition asks for.
        wanted: u32,
    },
    /// The run's cancel handle was set.
    Cancelled,
    /// A valid response from a speaker of `response(...)`.
    Response {
        /// The message's role.
        role: Role,
    },
    /// No valid response from a speaker of `no_response(...)`.
    NoResponse {
        /// The message's role.
        role: Role,
    },
    /// `single_round`: the round after the task's input is over (its first step, or
    /// its second with `llm_delegate`).
    SingleRound,
    /// `!x`: its condition did not fire.
    NotFired,
    /// A combinator: its children say why.
    Combined,
    /// What a custom condition said.
    Custom {
        /// Its registered name.
        name: String,
        /// Its detail.
        detail: String,
    },
}

/// The limits of a token budget, in an [`Evidence::Tokens`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TokenBudgetEvidence {
    /// Input plus output tokens.
    pub total: Option<u64>,
    /// Input tokens.
    pub input: Option<u64>,
    /// Output tokens.
    pub output: Option<u64>,
}

impl From<TokenBudget> for TokenBudgetEvidence {
    fn from(b: TokenBudget) -> TokenBudgetEvidence {
        TokenBudgetEvidence {
            total: b.total,
            input: b.input,
            output: b.output,
        }
    }
}

impl Evidence {
    /// A tool evidence for this phase.
    pub(crate) fn tool(name: Option<&str>, phase: ToolPhase) -> Evidence {
        Evidence::Tool {
            name: name.map(str::to_owned),
            executed: phase != ToolPhase::Requested,
        }
    }
}

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Evidence::Sequence { matched } => {
                write!(f, "matched steps {}..={}", matched.start(), matched.end())
            }
            Evidence::Final => f.write_str("a FINAL answer"),
            Evidence::DoneSignal => f.write_str("the content says DONE"),
            Evidence::Turns { taken, limit } => write!(f, "turns {taken}/{limit}"),
            Evidence::ModelCalls { made, limit } => write!(f, "model calls {made}/{limit}"),
            Evidence::Messages { counted, limit } => write!(f, "messages {counted}/{limit}"),
            Evidence::StopMessage => f.write_str("a stop message"),
            Evidence::Handoff { target } => write!(f, "handoff to {target}"),
            Evidence::Tokens {
                budget,
                total,
                input,
                output,
            } => {
                f.write_str("tokens ")?;
                let mut first = true;
                for (name, limit, used) in [
                    ("total", budget.total, *total),
                    ("input", budget.input, *input),
                    ("output", budget.output, *output),
                ] {
                    if let Some(limit) = limit {
                        if !first {
                            f.write_str(", ")?;
                        }
                        first = false;
                        write!(f, "{} ({used}/{limit} {name})", percent(used, limit))?;
                    }
                }
                Ok(())
            }
            Evidence::Elapsed {
                elapsed_ms,
                limit_ms,
            } => write!(
                f,
                "elapsed {} of {} ({})",
                seconds(*elapsed_ms),
                seconds(*limit_ms),
                percent(*elapsed_ms, *limit_ms)
            ),
            Evidence::Errors { in_a_row, limit } => write!(f, "errors in a row {in_a_row}/{limit}"),
            Evidence::Tool { name, executed } => {
                let name = name.as_deref().unwrap_or("a tool");
                let phase = if *executed { "executed" } else { "requested" };
                write!(f, "{name} {phase}")
            }
            Evidence::NoToolCalls => f.write_str("an LLM response without tool calls"),
            Evidence::Text { matched, role } => {
                write!(f, "{matched:?} matched in a {role} message")
            }
            Evidence::TextAt { step } => write!(f, "matched at step {step}"),
            Evidence::Confidence { value, threshold } => {
                write!(f, "confidence {value} >= {threshold}")
            }
            Evidence::ConfidenceFallback => f.write_str("a FINAL answer (confidence fallback)"),
            Evidence::Reward { total, threshold } => {
                write!(f, "cumulative reward {total} >= {threshold}")
            }
            Evidence::NegativeRewards { streak, limit } => {
                write!(f, "{streak} negative rewards in a row (limit {limit})")
            }
            Evidence::Loop {
                period,
                repeats,
                wanted,
            } => write!(f, "longest repeat {repeats} of {wanted} (period {period})"),
            Evidence::Cancelled => f.write_str("the run's cancel handle was set"),
            Evidence::Response { role } => write!(f, "a valid {role} response"),
            Evidence::NoResponse { role } => write!(f, "no valid response from {role}"),
            Evidence::SingleRound => f.write_str("the round after the task's input is over"),
            Evidence::NotFired => f.write_str("its condition did not fire"),
            Evidence::Combined => Ok(()),
            Evidence::Custom { detail, .. } => f.write_str(detail),
        }
    }
}

/// `used` as a percentage of `limit`, rounded down (100% for a limit of 0).
pub(crate) fn percent(used: u64, limit: u64) -> String {
    if limit == 0 {
        return "100%".to_owned();
    }
    format!("{}%", u128::from(used) * 100 / u128::from(limit))
}

/// Milliseconds as seconds: `10s`, `1.500s`.
pub(crate) fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{}.{:03}s", ms / 1000, ms % 1000)
    }
}

/// A fired condition serializes with its evidence, and the evidence's sentence as
/// `detail`.
#[cfg(feature = "serde")]
impl serde::Serialize for crate::FiredCondition {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("FiredCondition", 9)?;
        s.serialize_field("node", &self.node)?;
        s.serialize_field("id", &self.id)?;
        s.serialize_field("text", &*self.text)?;
        s.serialize_field("path", &self.path)?;
        s.serialize_field("rule", &self.rule)?;
        s.serialize_field("kind", &self.kind)?;
        s.serialize_field("at", &self.at)?;
        s.serialize_field("evidence", &self.evidence)?;
        s.serialize_field("detail", &self.evidence.to_string())?;
        s.end()
    }
}

/// A fired condition deserializes from what it serializes to; `detail` is read from
/// the evidence, so a `detail` in the input is accepted and not kept.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for crate::FiredCondition {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<crate::FiredCondition, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Wire {
            node: crate::NodeId,
            id: crate::stop::ConditionId,
            text: String,
            path: Vec<usize>,
            rule: Option<crate::StopReason>,
            kind: crate::VerdictKind,
            at: u64,
            evidence: Evidence,
            #[serde(default, rename = "detail")]
            _detail: Option<serde::de::IgnoredAny>,
        }
        let w = Wire::deserialize(deserializer)?;
        Ok(crate::FiredCondition {
            node: w.node,
            id: w.id,
            text: w.text.into(),
            path: w.path,
            rule: w.rule,
            kind: w.kind,
            at: w.at,
            evidence: w.evidence,
        })
    }
}
