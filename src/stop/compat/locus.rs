//! locus's stop conditions (`locus.core.termination`): its constructors by name,
//! combined with the `&`, `|` and `!` of [`Condition`], and its `StopReason` for an
//! outcome.
//!
//! locus's signature example, term for term:
//!
//! ```
//! use doneseq::stop::Condition;
//! use doneseq::stop::compat::locus::{confidence_met, max_iterations, text_mention, tool_called};
//!
//! // (ToolCalled("send_summary") & ConfidenceMet(0.9)) | TextMention(r"\bDONE\b") | MaxIterations(10)
//! let termination = (tool_called("send_summary") & confidence_met(0.9))
//!     | text_mention(r"\bDONE\b")?
//!     | max_iterations(10);
//! let Condition::Any(branches) = &termination else { panic!() };
//! assert_eq!(branches.len(), 3);
//! assert!(matches!(&branches[0], Condition::All(both) if both.len() == 2));
//! # Ok::<(), doneseq::stop::compat::CompatError>(())
//! ```
//!
//! # Where locus and doneseq differ
//!
//! - **`&` is latched.** locus evaluates an `AndCondition` afresh each iteration (only
//!   `ToolCalled` stays true, because it looks at the whole run); doneseq's `&`
//!   ([`Condition::All`]) remembers each child that fired, so `tool_called(x) &
//!   confidence_met(0.9)` fires once both have happened, in either order. Both
//!   operators evaluate every child (locus short-circuits, so a `TimeLimit` on the
//!   right of an `|` may never start its clock).
//! - **Steps, not iterations.** locus counts ReAct iterations (a model call and its
//!   tools); `max_iterations(n)` here counts every step of the run (model messages,
//!   tool results, user messages; system messages are not steps). Conditions are
//!   evaluated after each step, not at the top of the next iteration.
//! - **What the docs promise wins over what the code does**: `text_mention` is a
//!   regex (locus's code searches a substring, so its documented `\bDONE\b` never
//!   fires), `tool_called_with` compares arguments (locus's code has no `args`),
//!   `custom_condition` names a registered condition (locus's takes a Python
//!   function).
//! - **The stop reason is deterministic**: [`locus_stop_reason`] maps the reason that
//!   leads the outcome (locus normalises an `AND` reason by iterating a frozenset, so
//!   its answer depends on the hash seed) and a custom stop keeps its kind (locus says
//!   `complete` for every unknown reason, so a failure looks like success).

use std::time::Duration;

use super::{CompatError, Leading};
use crate::stop::ToolPhase;
use crate::stop::{Condition, ConfidenceMet, Speaker, TextMention, TextPattern, ToolCalled};
use crate::{Outcome, Role, StopReason, VerdictKind};

/// locus's default `ConfidenceMet` threshold (`ConfidenceMet()` in Python is
/// `confidence_met(DEFAULT_CONFIDENCE)` here).
pub const DEFAULT_CONFIDENCE: f64 = 0.9;

/// `MaxIterations(n)`: [`Condition::MaxTurns`], which fires at the `n`th step (locus:
/// `iteration >= n`; see the [module documentation](self) for steps and iterations).
///
/// ```
/// use doneseq::stop::{Condition, compat::locus::max_iterations};
///
/// assert_eq!(max_iterations(8), Condition::max_turns(8));
/// ```
#[must_use]
pub const fn max_iterations(n: u64) -> Condition {
    Condition::MaxTurns(n)
}

/// `TokenLimit(n)`: a total (input + output) token budget that fires when the run's
/// tokens reach `n` (locus: `total_tokens_used >= n`).
///
/// ```
/// use doneseq::stop::{Condition, compat::locus::token_limit};
///
/// assert_eq!(token_limit(50_000), Condition::tokens(50_000));
/// ```
#[must_use]
pub const fn token_limit(n: u64) -> Condition {
    Condition::tokens(n)
}

/// `TimeLimit(seconds)`: [`Condition::Timeout`], fractions of a second allowed. (With
/// a [`Duration`] at hand, [`Condition::timeout`] is the same.)
///
/// locus starts its clock at the first check, doneseq when the run starts.
///
/// # Errors
///
/// [`CompatError::InvalidSeconds`] for a negative, NaN, infinite or too large number.
///
/// ```
/// use doneseq::stop::{Condition, compat::locus::time_limit};
/// use std::time::Duration;
///
/// assert_eq!(time_limit(1.5)?, Condition::timeout(Duration::from_millis(1500)));
/// assert!(time_limit(-1.0).is_err() && time_limit(f64::NAN).is_err());
/// # Ok::<(), doneseq::stop::compat::CompatError>(())
/// ```
pub fn time_limit(seconds: f64) -> Result<Condition, CompatError> {
    Duration::try_from_secs_f64(seconds)
        .map(Condition::Timeout)
        .map_err(|_| CompatError::InvalidSeconds { seconds })
}

/// `NoToolCalls()`: the model answered with text and no tool call
/// ([`Condition::NoToolCalls`]).
///
/// ```
/// use doneseq::stop::{Condition, compat::locus::no_tool_calls};
///
/// assert_eq!(no_tool_calls(), Condition::NoToolCalls);
/// ```
#[must_use]
pub const fn no_tool_calls() -> Condition {
    Condition::NoToolCalls
}

/// `ToolCalled(name)`: the tool has *run* (its result arrived), as in locus, which
/// looks at the run's tool executions at the top of the next iteration. To stop
/// before the tool runs, use [`Condition::tool`].
///
/// Under `&` it stays fired for the rest of the run, like locus's, which matches any
/// past execution.
///
/// ```
/// use doneseq::stop::{Condition, compat::locus::tool_called};
///
/// assert_eq!(tool_called("submit_order"), Condition::tool_executed("submit_order"));
/// ```
#[must_use]
pub fn tool_called(name: impl Into<String>) -> Condition {
    Condition::tool_executed(name)
}

/// `ToolCalled(name, args=...)`, as locus's docs describe it: the tool has run, with
/// arguments that contain every key of `args` with an equal value (nested objects are
/// compared the same way).
///
/// # Errors
///
/// [`CompatError::ArgsNotObject`] when `args` is not a JSON object.
///
/// ```
/// use doneseq::stop::compat::locus::tool_called_with;
/// use serde_json::json;
///
/// let stop = tool_called_with("submit_order", json!({"status": "final"}))?;
/// assert!(tool_called_with("submit_order", json!(["final"])).is_err());
/// # Ok::<(), doneseq::stop::compat::CompatError>(())
/// ```
pub fn tool_called_with(
    name: impl Into<String>,
    args: serde_json::Value,
) -> Result<Condition, CompatError> {
    let found = match &args {
        serde_json::Value::Object(_) => None,
        serde_json::Value::Null => Some("null"),
        serde_json::Value::Bool(_) => Some("a boolean"),
        serde_json::Value::Number(_) => Some("a number"),
        serde_json::Value::String(_) => Some("a string"),
        serde_json::Value::Array(_) => Some("an array"),
    };
    if let Some(found) = found {
        return Err(CompatError::ArgsNotObject { found });
    }
    Ok(Condition::Tool(ToolCalled {
        name: Some(name.into()),
        phase: ToolPhase::Executed,
        args: Some(args),
    }))
}

/// `ConfidenceMet(threshold)`: the message's confidence is at least `threshold`, at
/// any step, with no `FINAL` fallback. (Plain [`Condition::confidence`] takes
/// rlm-code's defaults instead: no firing before step 2, and a `FINAL` answer fires
/// below the threshold.) locus's default threshold is [`DEFAULT_CONFIDENCE`].
///
/// ```
/// use doneseq::stop::{Condition, compat::locus::confidence_met};
///
/// let Condition::Confidence(c) = confidence_met(0.85) else { panic!() };
/// assert_eq!((c.threshold, c.min_steps, c.fallback_final), (0.85, 0, false));
/// ```
#[must_use]
pub fn confidence_met(threshold: f64) -> Condition {
    Condition::Confidence(ConfidenceMet {
        threshold,
        min_steps: 0,
        fallback_final: false,
        ..ConfidenceMet::default()
    })
}

/// `TextMention(pattern)`: the regex occurs in a message of the model, searched
/// case-sensitively as written (write `(?i)` to ignore case, or use
/// [`text_mention_with`]).
///
/// locus's docs promise a regex (`TextMention(r"\bDONE\b")`); its code searches a
/// plain, case-insensitive substring, which fires on "still undone" and never on its
/// own documented example. The docs' intent wins, and so does their use: sentinels
/// written in capitals, which a case-insensitive search would find in ordinary prose
/// ("not done yet"). Like locus, only the model's messages are searched (a user's
/// prompt quoting the sentinel does not stop the run).
///
/// # Errors
///
/// [`CompatError::InvalidPattern`] for an empty, invalid or too big regex.
///
/// ```
/// use doneseq::stop::{Condition, Speaker, compat::locus::text_mention};
/// use doneseq::Role;
///
/// let Condition::Text(mention) = text_mention(r"\bSHIP\b")? else { panic!() };
/// assert!(mention.pattern.is_match("ready to SHIP.") && !mention.pattern.is_match("shipping"));
/// assert_eq!(mention.from, [Speaker::Role(Role::Llm)]);
/// # Ok::<(), doneseq::stop::compat::CompatError>(())
/// ```
pub fn text_mention(pattern: &str) -> Result<Condition, CompatError> {
    text_mention_with(pattern, true)
}

/// `TextMention(pattern, case_sensitive=...)`: [`text_mention`], ignoring case when
/// `case_sensitive` is false (the pattern is prefixed with `(?i)`).
///
/// # Errors
///
/// [`CompatError::InvalidPattern`] for an empty, invalid or too big regex.
///
/// ```
/// use doneseq::stop::{Condition, compat::locus::text_mention_with};
///
/// let Condition::Text(mention) = text_mention_with("approved", false)? else { panic!() };
/// assert_eq!(mention.pattern.as_str(), "(?i)approved");
/// # Ok::<(), doneseq::stop::compat::CompatError>(())
/// ```
pub fn text_mention_with(pattern: &str, case_sensitive: bool) -> Result<Condition, CompatError> {
    let source = if case_sensitive || pattern.is_empty() {
        pattern.to_owned()
    } else {
        format!("(?i){pattern}")
    };
    let pattern =
        TextPattern::new(&source).map_err(|error| CompatError::InvalidPattern { error })?;
    Ok(Condition::Text(TextMention {
        pattern,
        from: vec![Speaker::Role(Role::Llm)],
    }))
}

/// `CustomCondition(...)`: a condition registered by name, with its JSON
/// configuration ([`Condition::Custom`]). locus takes a Python function; here the
/// function is registered with the monitor once and named in the tree, so that the
/// tree stays a plain value that prints, parses and serializes.
///
/// ```
/// use doneseq::stop::{Condition, compat::locus::custom_condition};
/// use serde_json::json;
///
/// let stop = custom_condition("revenue_extracted", json!({"field": "revenue_usd"}));
/// assert_eq!(stop, Condition::custom("revenue_extracted", json!({"field": "revenue_usd"})));
/// ```
#[must_use]
pub fn custom_condition(name: impl Into<String>, config: serde_json::Value) -> Condition {
    Condition::custom(name, config)
}

/// locus's `StopReason` literal for an outcome, from the reason that leads it:
///
/// | the outcome's leading reason | locus |
/// |---|---|
/// | `max_turns` (a task's option or the condition) | `max_iterations` |
/// | `done_if_tool` | `terminal_tool` |
/// | a done sequence, the `DONE` signal, `done_if_response`, `done_if_no_response`, `single_round` | `complete` |
/// | a stop condition of [`crate::TaskConfig::stop`] | [`condition_stop_reason`] of its text and the outcome's kind |
///
/// Deterministic: one outcome always gives one literal (see the [module
/// documentation](self)).
///
/// ```
/// use doneseq::stop::compat::locus::locus_stop_reason;
/// use doneseq::{Message, Monitor, TaskConfig};
///
/// let mut config = TaskConfig::default();
/// config.max_turns = Some(1);
/// let monitor = Monitor::new(config)?;
/// let mut run = monitor.start();
/// let outcome = monitor.observe(&mut run, &Message::user("hi")).outcome().cloned().unwrap();
/// assert_eq!(locus_stop_reason(&outcome), "max_iterations");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn locus_stop_reason(outcome: &Outcome) -> &'static str {
    match &outcome.reason {
        StopReason::MaxTurns(_) => "max_iterations",
        StopReason::DoneIfTool => "terminal_tool",
        StopReason::Sequence(_)
        | StopReason::StringSignal
        | StopReason::DoneIfResponse(_)
        | StopReason::DoneIfNoResponse(_)
        | StopReason::SingleRound => "complete",
        StopReason::Cancelled => "cancelled",
        StopReason::Condition(_) => outcome
            .leading()
            .map_or("complete", |c| condition_stop_reason(&c.text, outcome.kind)),
    }
}

/// locus's `StopReason` literal for a condition that stopped a run, given its
/// canonical text (the stop-expression language) and the outcome's kind:
///
/// | condition | locus |
/// |---|---|
/// | `max_turns(...)` | `max_iterations` |
/// | `tokens(...)` | `token_budget` |
/// | `timeout(...)` | `time_budget` |
/// | `tool(...)` | `terminal_tool` |
/// | `confidence(...)` | `confidence_met` |
/// | `no_tool_calls` | `no_tools` |
/// | `loop(...)` | `tool_loop` |
/// | `consecutive_errors(...)` | `error` |
/// | `cancelled` | `cancelled` |
/// | `a & b & ...` | the first operand's |
/// | anything else (`final`, `seq`, `text`, `done_signal`, `reward`, custom, `\|`, `!`) | by kind: `Done` → `complete`, `Exhausted` → `max_iterations`, `Stuck` → `tool_loop`, `Failed` → `error`, `Cancelled` → `cancelled` |
///
/// locus says `complete` for every reason it does not know, so a custom condition
/// that failed looks like success there; here its kind decides (a reward's negative
/// streak is `error`, its threshold `complete`).
///
/// ```
/// use doneseq::stop::compat::locus::condition_stop_reason;
/// use doneseq::VerdictKind;
///
/// assert_eq!(condition_stop_reason("timeout(30s)", VerdictKind::Exhausted), "time_budget");
/// assert_eq!(
///     condition_stop_reason("tool(\"send_summary\") & confidence(0.9)", VerdictKind::Done),
///     "terminal_tool",
/// );
/// assert_eq!(condition_stop_reason("text(\"DONE\")", VerdictKind::Done), "complete");
/// ```
#[must_use]
pub fn condition_stop_reason(condition_text: &str, kind: VerdictKind) -> &'static str {
    let mut leading = Leading::of(condition_text);
    // An `all` is named by its first operand (each round goes one level down).
    while let Some(first) = leading.first_of_all() {
        leading = first;
    }
    if let Some(reason) = leading.name().and_then(locus_name) {
        return reason;
    }
    match kind {
        VerdictKind::Done => "complete",
        VerdictKind::Exhausted => "max_iterations",
        VerdictKind::Stuck => "tool_loop",
        VerdictKind::Failed => "error",
        VerdictKind::Cancelled => "cancelled",
    }
}

/// locus's reason for one of our condition names, when it has one.
fn locus_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "max_turns" => "max_iterations",
        "tokens" => "token_budget",
        "timeout" => "time_budget",
        "tool" => "terminal_tool",
        "confidence" => "confidence_met",
        "no_tool_calls" => "no_tools",
        "loop" => "tool_loop",
        "consecutive_errors" => "error",
        "cancelled" => "cancelled",
        _ => return None,
    })
}
