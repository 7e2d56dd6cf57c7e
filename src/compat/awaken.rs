//! awaken's stop policies (`awaken::policies`): the declarative `StopConditionSpec`,
//! `policies_from_specs`, and a `StopDecision` for a verdict.
//!
//! ```
//! use doneseq::compat::awaken::{StopConditionSpec, policies_from_specs};
//! use doneseq::stop::Condition;
//! use std::time::Duration;
//!
//! let specs: Vec<StopConditionSpec> = serde_json::from_str(r#"[
//!     {"type": "max_rounds", "rounds": 10},
//!     {"type": "timeout", "seconds": 300},
//!     {"type": "token_budget", "max_total": 100000},
//!     {"type": "consecutive_errors", "max": 3}
//! ]"#)?;
//! let stop = policies_from_specs(&specs)?;
//! assert_eq!(stop, Condition::max_model_calls(10)
//!     | Condition::timeout(Duration::from_secs(300))
//!     | Condition::tokens(100_000)
//!     | Condition::consecutive_errors(3));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Where awaken and doneseq differ
//!
//! - **0 is not "disabled".** awaken turns a policy whose limit is 0 (or whose tool
//!   name or pattern is empty) into one that never stops, and a loop window below 2
//!   likewise. doneseq has no disabled conditions and never drops one: such a spec is
//!   a [`CompatError`] ([`CompatError::Disabled`], [`CompatError::WindowTooSmall`]);
//!   to disable a policy, leave its spec out.
//! - **Limits fire exactly at the limit.** awaken's `TokenBudget` stops when the total
//!   is *over* `max_total` and `Timeout` when the elapsed time is *over* the limit;
//!   doneseq's `tokens(n)` and `timeout(d)` fire when the count *reaches* it (`>=`), like
//!   awaken's `MaxRounds` and `ConsecutiveErrors` do. A run that uses exactly 100 000
//!   tokens stops here and not in awaken.
//! - **A bad regex is an error when the spec is loaded.** awaken stores it and stops
//!   every run at the first step with the code `content_match_invalid_regex` (it fails
//!   closed); [`policies_from_specs`] refuses it with the regex's error and position.
//! - **Rounds are model calls; errors and loops are over steps.** awaken evaluates its
//!   policies once per model call (its `AfterInference` hook), on counters of model
//!   calls. Checked against awaken-runtime 0.6.0's code, policy by policy:
//!   - `max_rounds`: awaken counts one round per model call and stops at
//!     `rounds >= max` → `max_model_calls(rounds)`, the same meaning.
//!   - `stop_on_tool`: awaken stops after the model call whose tool calls name the
//!     tool, before they run → `tool(name)` (the request), the same meaning.
//!   - `content_match`: awaken searches the latest model response's text with the
//!     Rust regex crate (case-sensitive, unanchored) → `text(pattern, from=llm)`, the
//!     same engine, flags and texts.
//!   - `consecutive_errors`: awaken counts failed model calls in a row (a successful
//!     call resets it); doneseq counts steps that report an error (a failed tool
//!     result counts, and any step without an error resets it).
//!   - `loop_detection`: awaken keeps the non-empty texts of model responses only and
//!     stops when the last `window` are identical; doneseq's `loop(period=1,
//!     repeats=window, over=texts)` compares the texts of all steps, so a tool result
//!     (or a tool-call reply with no text) between two identical model texts breaks
//!     the repeat here and not in awaken.
//! - **Which stop is reported.** awaken evaluates the policies in list order and the
//!   first `Stop` wins. doneseq's `Any` reports every condition that fired at the step
//!   ([`crate::Outcome::conditions`]); the leading one is the first in list order
//!   among those of the highest-precedence kind (`Failed` > `Cancelled` > `Done` >
//!   `Stuck` > `Exhausted`, see [`crate::VerdictKind::precedence`]). With
//!   `max_rounds` listed before `consecutive_errors` and both firing at one step,
//!   awaken says `max_rounds` and doneseq `consecutive_errors`; with `max_rounds`
//!   before `stop_on_tool`, doneseq says `stop_on_tool` (the task is done, on its
//!   last allowed step). Both are in the outcome either way.

use std::time::Duration;

use super::CompatError;
use crate::stop::ConditionId;
use crate::stop::{Condition, LoopDetection, LoopOver, MAX_LOOP_REPEATS, Speaker, TextMention};
use crate::stop::{TextPattern, ToolCalled, ToolPhase};
use crate::{Evidence, FiredCondition, Outcome, Role, StopReason, Verdict};

/// awaken's declarative stop condition (`awaken_contract::contract::lifecycle`), with
/// its serde shape: internally tagged by `type`, snake_case, unknown fields refused.
///
/// ```
/// use doneseq::compat::awaken::StopConditionSpec;
///
/// let spec: StopConditionSpec = serde_json::from_str(r#"{"type": "stop_on_tool", "tool_name": "finish"}"#)?;
/// assert_eq!(spec, StopConditionSpec::StopOnTool { tool_name: "finish".into() });
/// assert_eq!(serde_json::to_string(&StopConditionSpec::LoopDetection { window: 3 })?,
///            r#"{"type":"loop_detection","window":3}"#);
/// assert!(serde_json::from_str::<StopConditionSpec>(r#"{"type": "timeout", "secs": 5}"#).is_err());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum StopConditionSpec {
    /// Stop at the `rounds`th model response: `max_model_calls(rounds)`.
    MaxRounds {
        /// The number of steps.
        rounds: usize,
    },
    /// Stop when the run has lasted `seconds`: `timeout(seconds)`.
    Timeout {
        /// The limit, in seconds (awaken's `TimeoutPolicy::new` takes milliseconds;
        /// the spec takes seconds).
        seconds: u64,
    },
    /// Stop when input plus output tokens reach `max_total`: `tokens(max_total)`.
    TokenBudget {
        /// The total token limit.
        max_total: usize,
    },
    /// Stop after `max` steps in a row that report an error:
    /// `consecutive_errors(max)`.
    ConsecutiveErrors {
        /// How many in a row.
        max: usize,
    },
    /// Stop when the model *requests* this tool, before it runs: `tool(tool_name)`.
    StopOnTool {
        /// The tool's name, compared exactly.
        tool_name: String,
    },
    /// Stop when the model's text matches this regex (case-sensitive, as written):
    /// `text(pattern)` from `llm` messages only.
    ContentMatch {
        /// The regex.
        pattern: String,
    },
    /// Stop when the last `window` texts are identical: a loop of period 1 repeated
    /// `window` times over texts.
    LoopDetection {
        /// How many identical texts in a row; at least 2, at most
        /// [`MAX_LOOP_REPEATS`].
        window: usize,
    },
}

impl StopConditionSpec {
    /// awaken's code for this policy: its `type` (`max_rounds`, `timeout`,
    /// `token_budget`, `consecutive_errors`, `stop_on_tool`, `content_match`,
    /// `loop_detection`), which is also the `code` of its `StopDecision::Stop`.
    ///
    /// ```
    /// use doneseq::compat::awaken::StopConditionSpec;
    ///
    /// assert_eq!(StopConditionSpec::TokenBudget { max_total: 10 }.code(), "token_budget");
    /// ```
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            StopConditionSpec::MaxRounds { .. } => "max_rounds",
            StopConditionSpec::Timeout { .. } => "timeout",
            StopConditionSpec::TokenBudget { .. } => "token_budget",
            StopConditionSpec::ConsecutiveErrors { .. } => "consecutive_errors",
            StopConditionSpec::StopOnTool { .. } => "stop_on_tool",
            StopConditionSpec::ContentMatch { .. } => "content_match",
            StopConditionSpec::LoopDetection { .. } => "loop_detection",
        }
    }
}

impl TryFrom<StopConditionSpec> for Condition {
    type Error = CompatError;

    /// The condition of one spec (see each variant).
    ///
    /// # Errors
    ///
    /// - [`CompatError::Disabled`]: a limit of 0, an empty tool name or pattern (awaken
    ///   reads them as "disabled");
    /// - [`CompatError::WindowTooSmall`], [`CompatError::WindowTooLarge`]: a loop
    ///   window outside `2..=64`;
    /// - [`CompatError::InvalidPattern`]: a `content_match` regex that does not compile.
    ///
    /// ```
    /// use doneseq::compat::{CompatError, awaken::StopConditionSpec};
    /// use doneseq::stop::{Condition, LoopDetection, LoopOver};
    ///
    /// let stop = Condition::try_from(StopConditionSpec::LoopDetection { window: 4 })?;
    /// let Condition::Loop(detection) = stop else { panic!() };
    /// assert_eq!((detection.period, detection.repeats, detection.over), (1, 4, LoopOver::Texts));
    ///
    /// let err = Condition::try_from(StopConditionSpec::ContentMatch { pattern: "(".into() });
    /// assert!(matches!(err, Err(CompatError::InvalidPattern { .. })));
    /// # Ok::<(), CompatError>(())
    /// ```
    fn try_from(spec: StopConditionSpec) -> Result<Condition, CompatError> {
        let disabled = |field| CompatError::Disabled {
            spec: spec.code(),
            field,
        };
        let condition = match &spec {
            StopConditionSpec::MaxRounds { rounds: 0 } => return Err(disabled("rounds")),
            StopConditionSpec::MaxRounds { rounds } => Condition::MaxModelCalls(widen(*rounds)),
            StopConditionSpec::Timeout { seconds: 0 } => return Err(disabled("seconds")),
            StopConditionSpec::Timeout { seconds } => {
                Condition::Timeout(Duration::from_secs(*seconds))
            }
            StopConditionSpec::TokenBudget { max_total: 0 } => return Err(disabled("max_total")),
            StopConditionSpec::TokenBudget { max_total } => Condition::tokens(widen(*max_total)),
            StopConditionSpec::ConsecutiveErrors { max: 0 } => return Err(disabled("max")),
            StopConditionSpec::ConsecutiveErrors { max } => {
                Condition::ConsecutiveErrors(widen(*max))
            }
            StopConditionSpec::StopOnTool { tool_name } if tool_name.is_empty() => {
                return Err(disabled("tool_name"));
            }
            StopConditionSpec::StopOnTool { tool_name } => Condition::Tool(ToolCalled {
                name: Some(tool_name.clone()),
                phase: ToolPhase::Requested,
                args: None,
            }),
            StopConditionSpec::ContentMatch { pattern } if pattern.is_empty() => {
                return Err(disabled("pattern"));
            }
            StopConditionSpec::ContentMatch { pattern } => Condition::Text(TextMention {
                pattern: TextPattern::new(pattern)
                    .map_err(|error| CompatError::InvalidPattern { error })?,
                from: vec![Speaker::Role(Role::Llm)],
            }),
            StopConditionSpec::LoopDetection { window } => {
                let repeats = u32::try_from(*window)
                    .ok()
                    .filter(|r| *r <= MAX_LOOP_REPEATS)
                    .ok_or(CompatError::WindowTooLarge {
                        window: *window,
                        max: MAX_LOOP_REPEATS,
                    })?;
                if repeats < 2 {
                    return Err(CompatError::WindowTooSmall { window: *window });
                }
                Condition::Loop(LoopDetection {
                    period: 1,
                    repeats,
                    over: LoopOver::Texts,
                    exempt: Vec::new(),
                })
            }
        };
        Ok(condition)
    }
}

/// `usize` to `u64`: lossless on every platform Rust supports (at most 64 bits).
fn widen(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// awaken's `policies_from_specs`: one condition that fires when any spec's does, in
/// list order (the specs of a list are an implicit OR in awaken too).
///
/// One spec gives its own condition (not an `any` of one); two or more give
/// [`Condition::Any`] of theirs, in the list's order. See the [module
/// documentation](self) for how the reported stop differs from awaken's "first
/// `Stop` wins".
///
/// # Errors
///
/// - [`CompatError::EmptyList`]: no specs (the result would never stop anything);
/// - [`CompatError::AtIndex`] with `list` `"specs"`: the first spec that failed, and
///   why (see `Condition`'s `TryFrom<StopConditionSpec>`).
///
/// ```
/// use doneseq::compat::{CompatError, awaken::{StopConditionSpec, policies_from_specs}};
/// use doneseq::stop::Condition;
///
/// let specs = [StopConditionSpec::StopOnTool { tool_name: "finish".into() }];
/// assert_eq!(policies_from_specs(&specs)?, Condition::tool("finish"));
///
/// let specs = [StopConditionSpec::MaxRounds { rounds: 5 }, StopConditionSpec::ConsecutiveErrors { max: 0 }];
/// let err = policies_from_specs(&specs).unwrap_err();
/// assert_eq!(err.to_string(), "specs[1]: consecutive_errors.max is 0, which awaken reads as \
///     \"disabled\"; doneseq does not drop conditions: remove this spec to disable it");
/// # Ok::<(), CompatError>(())
/// ```
pub fn policies_from_specs(specs: &[StopConditionSpec]) -> Result<Condition, CompatError> {
    let mut conditions = specs
        .iter()
        .enumerate()
        .map(|(index, spec)| {
            Condition::try_from(spec.clone()).map_err(|error| CompatError::AtIndex {
                list: "specs",
                index,
                error: Box::new(error),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    match conditions.len() {
        0 => Err(CompatError::EmptyList),
        1 => Ok(conditions.remove(0)),
        _ => Ok(Condition::Any(conditions)),
    }
}

/// awaken's `StopDecision`: go on, or stop with a machine code and a human detail.
///
/// Converted from a [`Verdict`]: `Continue` stays `Continue`; a stop's `code` is
/// awaken's code for the reason that leads the outcome (`max_rounds`,
/// `token_budget`, `timeout`, `consecutive_errors`, `stop_on_tool`, `content_match`,
/// `loop_detection`), and ours where awaken has none (`done_sequence`,
/// `done_if_tool`, `final`, `confidence`, ...: see [`condition_code`]). The `detail`
/// says what fired at which step.
///
/// ```
/// use doneseq::compat::awaken::StopDecision;
/// use doneseq::{Message, Monitor, TaskConfig, Verdict};
///
/// let mut config = TaskConfig::default();
/// config.max_turns = Some(1);
/// let monitor = Monitor::new(config)?;
/// let mut run = monitor.start();
/// let verdict = monitor.observe(&mut run, &Message::llm("hi"));
/// let StopDecision::Stop { code, detail } = StopDecision::from(&verdict) else { panic!() };
/// assert_eq!(code, "max_turns");
/// assert_eq!(detail, "step 0: max_turns(1) reached");
/// assert_eq!(StopDecision::from(&Verdict::Continue), StopDecision::Continue);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StopDecision {
    /// Nothing stops the run here.
    Continue,
    /// The run stops.
    Stop {
        /// A machine-readable code: awaken's where awaken has the condition.
        code: String,
        /// What fired, at which step.
        detail: String,
    },
}

impl From<&Verdict> for StopDecision {
    fn from(verdict: &Verdict) -> StopDecision {
        match verdict {
            Verdict::Continue => StopDecision::Continue,
            Verdict::Stop(outcome) => stop_decision(outcome),
        }
    }
}

impl From<Verdict> for StopDecision {
    fn from(verdict: Verdict) -> StopDecision {
        StopDecision::from(&verdict)
    }
}

/// The stop for an outcome, from its leading reason.
fn stop_decision(outcome: &Outcome) -> StopDecision {
    let at = outcome.at;
    let (code, detail) = match &outcome.reason {
        StopReason::DoneIfTool => (
            "done_if_tool".to_owned(),
            format!("step {at}: the model called a tool (done_if_tool)"),
        ),
        StopReason::Sequence(index) => {
            let matched = outcome
                .fired
                .iter()
                .find(|m| m.sequence == *index)
                .map(|m| format!(" (steps {}..={})", m.matched.start(), m.matched.end()))
                .unwrap_or_default();
            (
                "done_sequence".to_owned(),
                format!("step {at}: done sequence {index} matched{matched}"),
            )
        }
        StopReason::StringSignal => (
            "done_signal".to_owned(),
            format!("step {at}: the content says DONE"),
        ),
        StopReason::DoneIfResponse(role) => (
            "done_if_response".to_owned(),
            format!("step {at}: {role} gave a valid response (done_if_response)"),
        ),
        StopReason::DoneIfNoResponse(role) => (
            "done_if_no_response".to_owned(),
            format!("step {at}: {role} gave no valid response (done_if_no_response)"),
        ),
        StopReason::SingleRound => (
            "single_round".to_owned(),
            format!("step {at}: the round after the task's input ends the task (single_round)"),
        ),
        StopReason::MaxTurns(n) => (
            "max_turns".to_owned(),
            format!("step {at}: max_turns({n}) reached"),
        ),
        StopReason::Condition(_) | StopReason::Cancelled => match outcome.leading() {
            Some(c) => {
                let evidence = c.evidence.to_string();
                let evidence = if evidence.is_empty() {
                    evidence
                } else {
                    format!(": {evidence}")
                };
                let text = &*c.text;
                (condition_code(c), format!("step {at}: {text}{evidence}"))
            }
            None => ("cancelled".to_owned(), format!("step {at}: cancelled")),
        },
    };
    StopDecision::Stop { code, detail }
}

/// awaken's code for a fired condition: `max_model_calls` → `max_rounds`, `tokens` →
/// `token_budget`, `timeout` → `timeout`, `consecutive_errors` →
/// `consecutive_errors`, `tool` → `stop_on_tool`, `text` → `content_match`, `loop` →
/// `loop_detection`. A custom condition gives its registered name (an awaken
/// `StopPolicy`'s code is its `id()`). Conditions awaken does not have keep their own
/// canonical name (`final`, `seq`, `confidence`, `reward`, `cancelled`, ...).
///
/// ```
/// use doneseq::compat::awaken::condition_code;
/// use doneseq::stop::Condition;
/// use doneseq::{Message, Monitor, TaskConfig};
///
/// let mut config = TaskConfig::default();
/// config.stop = Some(Condition::parse("max_model_calls(1)")?);
/// let monitor = Monitor::new(config)?;
/// let mut run = monitor.start();
/// let outcome = monitor.observe(&mut run, &Message::llm("hi")).outcome().cloned().unwrap();
/// assert_eq!(condition_code(outcome.leading().unwrap()), "max_rounds");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn condition_code(fired: &FiredCondition) -> String {
    if let Evidence::Custom { name, .. } = &fired.evidence {
        return name.clone();
    }
    id_code(fired.id).to_owned()
}

/// awaken's code for a kind of condition (what [`condition_code`] gives for a
/// built-in): awaken's policy name where awaken has the condition, doneseq's
/// canonical name otherwise.
///
/// ```
/// use doneseq::compat::awaken::id_code;
/// use doneseq::stop::ConditionId;
///
/// assert_eq!(id_code(ConditionId::Tokens), "token_budget");
/// assert_eq!(id_code(ConditionId::Final), "final");
/// ```
#[must_use]
pub fn id_code(id: ConditionId) -> &'static str {
    match id {
        ConditionId::MaxModelCalls => "max_rounds",
        ConditionId::Tokens => "token_budget",
        ConditionId::Tool => "stop_on_tool",
        ConditionId::Text => "content_match",
        ConditionId::Loop => "loop_detection",
        other => other.name(),
    }
}
