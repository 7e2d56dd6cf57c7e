//! The syntax of stop conditions: built-in conditions combined with `&`, `|` and `!`.
//!
//! These are plain values: they compare, clone, print as the stop-expression language
//! (`Display`), parse back from it (`FromStr`) and (de)serialize. A [`crate::Monitor`]
//! compiles a tree once and evaluates it after every message of a run.

use std::fmt;
use std::time::Duration;

use regex_automata::meta::Regex;

use crate::dsl::{ParseError, Subject};
use crate::{DoneSequence, Role};

/// A stop condition: a built-in test, or a combination of conditions.
///
/// Every condition is evaluated after every step (never short-circuited, so a
/// condition's counters and clocks see every step whichever branch fires first).
///
/// - [`Condition::All`] is **latched per run**: a child that fired at some step stays
///   fired until the run ends, so `tool(send_summary) & confidence(0.85)` fires at the
///   step where the second of the two has fired, even when they fired at different
///   steps (AutoGen's semantics). A child under `All` therefore means "has fired at
///   some step of this run", also for `!x` (which fires at any step where `x` does
///   not).
/// - [`Condition::Any`] fires at a step where at least one child fires.
/// - [`Condition::Not`] fires at a step where its child does not fire.
///
/// # Example
///
/// ```
/// use doneseq::stop::Condition;
///
/// let stop = Condition::tool("send_summary") & Condition::confidence(0.85)
///     | Condition::max_turns(10);
/// assert_eq!(stop.children().len(), 2);
/// assert_eq!(stop.children()[0].children().len(), 2);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Condition {
    /// A done sequence (the DSL) matches the latest steps. Kind: `Done`.
    Sequence(DoneSequence),
    /// The message carries a `FINAL(...)`, `FINAL_VAR(...)` or `SUBMIT(...)` answer
    /// (the DSL's `F`). Kind: `Done`.
    Final,
    /// The content says `DONE` as a word (Langroid's string signal). Kind: `Done`.
    DoneSignal,
    /// This many steps were taken: fires at the `n`th step. Kind: `Exhausted`.
    MaxTurns(u64),
    /// This many chat messages were exchanged, as AutoGen's `MaxMessageTermination`
    /// counts them: every step but tool-call requests and tool results, unless
    /// `events` counts those too. Kind: `Exhausted`.
    MaxMessages(MessageBudget),
    /// A stop message arrived (AutoGen's `StopMessageTermination`). Kind: `Done`.
    StopMessage,
    /// A handoff to one of these agents (any agent when empty; AutoGen's
    /// `HandoffTermination`). Kind: `Done`.
    Handoff(Vec<String>),
    /// The model responded this many times (LLM messages with a response, with or
    /// without tool calls): awaken's rounds, locus's iterations, the OpenAI Agents
    /// SDK's turns. Kind: `Exhausted`.
    MaxModelCalls(u64),
    /// A token budget: fires when a cumulative count reaches its limit. Kind:
    /// `Exhausted`.
    Tokens(TokenBudget),
    /// The run's elapsed time reaches this duration (checked when a message arrives;
    /// millisecond resolution). Kind: `Exhausted`.
    Timeout(Duration),
    /// This many consecutive steps reported an error. Kind: `Failed`.
    ConsecutiveErrors(u64),
    /// A tool was called (requested by the model, or executed). Kind: `Done`.
    Tool(ToolCalled),
    /// The model answered with text and no tool call (a valid LLM response, the DSL's
    /// `L`). Kind: `Done`.
    NoToolCalls,
    /// A regex matches the content of a message, optionally only from some speakers.
    /// Kind: `Done`.
    Text(TextMention),
    /// The message's confidence reaches a threshold. Kind: `Done`.
    Confidence(ConfidenceMet),
    /// The cumulative reward reaches a threshold (`Done`), or rewards were negative
    /// too many steps in a row (`Failed`).
    Reward(RewardThreshold),
    /// The latest steps repeat a cycle. Kind: `Stuck`.
    Loop(LoopDetection),
    /// The run's cancel handle was set (see [`crate::RunState::cancel_handle`]). Kind:
    /// `Cancelled`.
    Cancelled,
    /// One of these speakers gave a valid response: a message with content, a tool
    /// call or an error, not a step without a response (Langroid's `done_if_response`).
    /// Kind: `Done`.
    Response(Vec<Speaker>),
    /// One of these speakers was asked and gave no valid response (the DSL's `N`;
    /// Langroid's `done_if_no_response`). Kind: `Done`.
    NoResponse(Vec<Speaker>),
    /// The task ends after its first step, or its first two with `llm_delegate`
    /// (Langroid's `single_round`: one round after the task's input, the LLM's
    /// question and its reply when the LLM is the controller). Kind: `Done`.
    SingleRound {
        /// The LLM is the controller (Langroid's `llm_delegate`): two steps.
        llm_delegate: bool,
    },
    /// A condition registered by name (see [`crate::stop::Registry`]), with its JSON
    /// configuration.
    Custom(CustomCondition),
    /// Every child has fired at some step of this run (latched). `all()` with no
    /// child never fires (and the lint reports it).
    All(Vec<Condition>),
    /// Some child fires at this step. `any()` with no child never fires (and the
    /// lint reports it).
    Any(Vec<Condition>),
    /// The child does not fire at this step. Kind: `Done`.
    Not(Box<Condition>),
}

/// Token limits; each limit that is set is checked, and reaching any one fires.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TokenBudget {
    /// Input plus output tokens.
    pub total: Option<u64>,
    /// Input (prompt) tokens.
    pub input: Option<u64>,
    /// Output (completion) tokens.
    pub output: Option<u64>,
}

impl TokenBudget {
    /// A limit on input plus output tokens.
    #[must_use]
    pub const fn total(limit: u64) -> TokenBudget {
        TokenBudget {
            total: Some(limit),
            input: None,
            output: None,
        }
    }

    /// The same budget with an input-token limit.
    #[must_use]
    pub const fn with_input(mut self, limit: u64) -> TokenBudget {
        self.input = Some(limit);
        self
    }

    /// The same budget with an output-token limit.
    #[must_use]
    pub const fn with_output(mut self, limit: u64) -> TokenBudget {
        self.output = Some(limit);
        self
    }

    /// Whether no limit is set (such a budget never fires; the lint reports it).
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.total.is_none() && self.input.is_none() && self.output.is_none()
    }
}

/// When a tool counts as called.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolPhase {
    /// When the model *requests* it: the LLM message with the call. The run stops
    /// before the tool runs (awaken's `StopOnTool`, Langroid's `done_if_tool`).
    #[default]
    Requested,
    /// When its result arrives without an error: an agent (tool) message answering a
    /// request of it. A failed call did not do the job, so its result does not count
    /// (AutoGen's `FunctionCallTermination` counts it: see `Finished`).
    Executed,
    /// When its result arrives, failed or not (AutoGen's `FunctionCallTermination`).
    Finished,
}

/// The [`Condition::Tool`] test.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolCalled {
    /// The tool's name, compared exactly; `None` for any tool.
    pub name: Option<String>,
    /// Requested or executed.
    pub phase: ToolPhase,
    /// A JSON object the call's arguments must contain (every key, with an equal
    /// value; nested objects are compared the same way). `None`: any arguments.
    pub args: Option<serde_json::Value>,
}

/// Who may have said a [`Condition::Text`] mention.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Speaker {
    /// Any message of this role.
    Role(Role),
    /// Any message from the responder of this name (written `@name`).
    Responder(String),
}

impl fmt::Display for Speaker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Speaker::Role(role) => write!(f, "{role}"),
            Speaker::Responder(name) => write!(f, "@{name}"),
        }
    }
}

/// A regex for [`Condition::Text`], compiled when it is made.
///
/// The search is unanchored and **case-sensitive**, as written (unlike the DSL's
/// `C[...]`, which follows Langroid in ignoring case); write `(?i)` to ignore case.
/// Two patterns are equal when their source text is equal.
#[derive(Clone)]
pub struct TextPattern {
    source: Box<str>,
    regex: Regex,
}

impl TextPattern {
    /// Compiles `pattern`.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] whose span points into `pattern`: empty, invalid, longer than
    /// [`crate::MAX_PATTERN_LEN`], or compiled bigger than [`crate::MAX_REGEX_SIZE`]
    /// (or, in a stop expression, past [`crate::MAX_REGEX_MEMORY`] with the others).
    pub fn new(pattern: &str) -> Result<TextPattern, ParseError> {
        if pattern.is_empty() {
            return Err(
                ParseError::new(crate::ParseErrorKind::EmptyBracket, 0..0, pattern)
                    .about(Subject::TEXT_PATTERN),
            );
        }
        match crate::text::build(pattern, false) {
            Ok((regex, _)) => Ok(TextPattern {
                source: pattern.into(),
                regex,
            }),
            Err((kind, span)) => {
                Err(ParseError::new(kind.into(), span, pattern).about(Subject::TEXT_PATTERN))
            }
        }
    }

    /// The pattern as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the pattern occurs in `text`.
    #[must_use]
    pub fn is_match(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }

    /// The first match's byte range in `text`.
    #[must_use]
    pub fn find(&self, text: &str) -> Option<std::ops::Range<usize>> {
        self.regex.find(text).map(|m| m.range())
    }
}

impl PartialEq for TextPattern {
    fn eq(&self, other: &TextPattern) -> bool {
        self.source == other.source
    }
}

impl Eq for TextPattern {}

impl fmt::Debug for TextPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("TextPattern").field(&self.source).finish()
    }
}

impl fmt::Display for TextPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// The [`Condition::Text`] test.
#[derive(Clone, Debug, PartialEq)]
pub struct TextMention {
    /// The regex searched in the content.
    pub pattern: TextPattern,
    /// Only messages from these speakers count; empty: any speaker.
    pub from: Vec<Speaker>,
}

/// The [`Condition::Confidence`] test (rlm-code's `ConfidenceTerminationPolicy`).
#[derive(Clone, Debug, PartialEq)]
pub struct ConfidenceMet {
    /// Fires when the confidence is at least this (default 0.85).
    pub threshold: f64,
    /// No firing before this step index (0-based, like rlm-code's `context.step`;
    /// default 2). The gate applies to the FINAL fallback too, as rlm-code documents;
    /// combine with `final` to accept a `FINAL` at any step.
    pub min_steps: u64,
    /// Where the confidence is read: `confidence` (the default) is the message's
    /// confidence; another key names one of its metrics ([`crate::Message::metric`]).
    pub key: String,
    /// Below the threshold, a `FINAL` answer in the message fires anyway (default
    /// true).
    pub fallback_final: bool,
}

impl ConfidenceMet {
    /// rlm-code's defaults with this threshold.
    #[must_use]
    pub fn new(threshold: f64) -> ConfidenceMet {
        ConfidenceMet {
            threshold,
            ..ConfidenceMet::default()
        }
    }
}

impl Default for ConfidenceMet {
    /// rlm-code's defaults: threshold 0.85, min steps 2, key `confidence`, FINAL
    /// fallback on.
    fn default() -> ConfidenceMet {
        ConfidenceMet {
            threshold: 0.85,
            min_steps: 2,
            key: "confidence".to_owned(),
            fallback_final: true,
        }
    }
}

/// The [`Condition::Reward`] test (rlm-code's `RewardThresholdTerminationPolicy`).
///
/// Only messages that carry a reward count: they add to the cumulative reward, and
/// a negative one extends the negative streak while a non-negative one ends it.
#[derive(Clone, Debug, PartialEq)]
pub struct RewardThreshold {
    /// Fires (`Done`) when the cumulative reward reaches this (default 0.8).
    pub threshold: f64,
    /// Fires (`Failed`) after this many negative rewards in a row (default 3; 0
    /// turns the streak test off).
    pub negative_streak: u64,
    /// The threshold only fires on a message with a `FINAL` answer (default false).
    pub require_final: bool,
}

impl RewardThreshold {
    /// rlm-code's defaults with this threshold.
    #[must_use]
    pub fn new(threshold: f64) -> RewardThreshold {
        RewardThreshold {
            threshold,
            ..RewardThreshold::default()
        }
    }
}

impl Default for RewardThreshold {
    /// rlm-code's defaults: threshold 0.8, negative streak 3, no final required.
    fn default() -> RewardThreshold {
        RewardThreshold {
            threshold: 0.8,
            negative_streak: 3,
            require_final: false,
        }
    }
}

/// What [`Condition::Loop`] compares between steps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LoopOver {
    /// Tool calls (names and normalised arguments) and texts (default): a repeated
    /// call whose result differs is progress, not a loop.
    #[default]
    Both,
    /// Tool calls only: steps without a call are left out.
    Calls,
    /// Texts only: steps without text are left out (awaken's `LoopDetection`).
    Texts,
}

/// The [`Condition::Loop`] test: the latest steps are a cycle of some period `p`
/// (1 ≤ `p` ≤ `period`) repeated `repeats` times back to back, e.g. `A A A`
/// (`p` = 1) or `A B C A B C A B C` (`p` = 3).
///
/// Each step is reduced to a signature: its role, its text with whitespace runs
/// collapsed and ends trimmed, and its tool calls with their arguments as canonical
/// JSON (keys sorted, no spaces), so formatting noise does not hide a loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopDetection {
    /// The longest cycle looked for (default 10, Langroid's `inf_loop_cycle_len`; at
    /// most [`crate::stop::MAX_LOOP_PERIOD`]).
    pub period: u32,
    /// How many times the cycle must occur in a row (default 3; at least 2).
    pub repeats: u32,
    /// What is compared.
    pub over: LoopOver,
    /// Tools whose calls (and the results answering them) are left out, e.g. a
    /// polling tool that is meant to repeat.
    pub exempt: Vec<String>,
}

impl Default for LoopDetection {
    /// Period up to 10, 3 repeats, over calls and texts, nothing exempt.
    fn default() -> LoopDetection {
        LoopDetection {
            period: 10,
            repeats: 3,
            over: LoopOver::Both,
            exempt: Vec::new(),
        }
    }
}

/// A [`Condition::Custom`]: the name of a registered condition and its JSON
/// configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomCondition {
    /// The registered name.
    pub name: String,
    /// Its configuration (`null` when none is given; the registered factory applies
    /// its defaults).
    pub config: serde_json::Value,
}

impl Condition {
    /// `seq("...")`: a done sequence.
    #[must_use]
    pub const fn sequence(sequence: DoneSequence) -> Condition {
        Condition::Sequence(sequence)
    }

    /// `max_turns(n)`.
    #[must_use]
    pub const fn max_turns(n: u64) -> Condition {
        Condition::MaxTurns(n)
    }

    /// `max_model_calls(n)`.
    #[must_use]
    pub const fn max_model_calls(n: u64) -> Condition {
        Condition::MaxModelCalls(n)
    }

    /// `max_messages(n)`: chat messages, as AutoGen counts them.
    #[must_use]
    pub const fn max_messages(n: u64) -> Condition {
        Condition::MaxMessages(MessageBudget {
            limit: n,
            events: false,
        })
    }

    /// `tokens(n)`: a total (input + output) token budget.
    #[must_use]
    pub const fn tokens(total: u64) -> Condition {
        Condition::Tokens(TokenBudget::total(total))
    }

    /// `timeout(d)`.
    #[must_use]
    pub const fn timeout(limit: Duration) -> Condition {
        Condition::Timeout(limit)
    }

    /// `consecutive_errors(n)`.
    #[must_use]
    pub const fn consecutive_errors(n: u64) -> Condition {
        Condition::ConsecutiveErrors(n)
    }

    /// `tool(name)`: the model requests tool `name`.
    #[must_use]
    pub fn tool(name: impl Into<String>) -> Condition {
        Condition::Tool(ToolCalled {
            name: Some(name.into()),
            ..ToolCalled::default()
        })
    }

    /// `tool(name, executed)`: the result of tool `name` arrives.
    #[must_use]
    pub fn tool_executed(name: impl Into<String>) -> Condition {
        Condition::Tool(ToolCalled {
            name: Some(name.into()),
            phase: ToolPhase::Executed,
            args: None,
        })
    }

    /// `text("regex")`: the pattern occurs in any message's content.
    ///
    /// # Errors
    ///
    /// When the regex is invalid or too big (see [`TextPattern::new`]).
    pub fn text(pattern: &str) -> Result<Condition, ParseError> {
        Ok(Condition::Text(TextMention {
            pattern: TextPattern::new(pattern)?,
            from: Vec::new(),
        }))
    }

    /// `confidence(t)`, with rlm-code's other defaults.
    #[must_use]
    pub fn confidence(threshold: f64) -> Condition {
        Condition::Confidence(ConfidenceMet::new(threshold))
    }

    /// `reward(t)`, with rlm-code's other defaults.
    #[must_use]
    pub fn reward(threshold: f64) -> Condition {
        Condition::Reward(RewardThreshold::new(threshold))
    }

    /// `loop()`, with the default options.
    #[must_use]
    pub fn loop_detection() -> Condition {
        Condition::Loop(LoopDetection::default())
    }

    /// `response(roles)`: a valid response from one of these roles.
    #[must_use]
    pub fn response(roles: impl IntoIterator<Item = Role>) -> Condition {
        Condition::Response(roles.into_iter().map(Speaker::Role).collect())
    }

    /// `no_response(roles)`: one of these roles gave no valid response.
    #[must_use]
    pub fn no_response(roles: impl IntoIterator<Item = Role>) -> Condition {
        Condition::NoResponse(roles.into_iter().map(Speaker::Role).collect())
    }

    /// `custom(name, config)`.
    #[must_use]
    pub fn custom(name: impl Into<String>, config: serde_json::Value) -> Condition {
        Condition::Custom(CustomCondition {
            name: name.into(),
            config,
        })
    }

    /// Whether this is `All`, `Any` or `Not`.
    #[must_use]
    pub const fn is_combinator(&self) -> bool {
        matches!(
            self,
            Condition::All(_) | Condition::Any(_) | Condition::Not(_)
        )
    }

    /// The children of a combinator (none for a built-in).
    #[must_use]
    pub fn children(&self) -> &[Condition] {
        match self {
            Condition::All(children) | Condition::Any(children) => children,
            Condition::Not(child) => std::slice::from_ref(child),
            _ => &[],
        }
    }
}

impl std::ops::BitAnd for Condition {
    type Output = Condition;

    /// `a & b`: `All`, flattened when `a` is already an `All` (so `a & b & c` is one
    /// node with three children, as the expression language parses it).
    fn bitand(self, rhs: Condition) -> Condition {
        match self {
            Condition::All(mut children) if children.len() >= 2 => {
                children.push(rhs);
                Condition::All(children)
            }
            lhs => Condition::All(vec![lhs, rhs]),
        }
    }
}

impl std::ops::BitOr for Condition {
    type Output = Condition;

    /// `a | b`: `Any`, flattened when `a` is already an `Any` of two or more.
    fn bitor(self, rhs: Condition) -> Condition {
        match self {
            Condition::Any(mut children) if children.len() >= 2 => {
                children.push(rhs);
                Condition::Any(children)
            }
            lhs => Condition::Any(vec![lhs, rhs]),
        }
    }
}

impl std::ops::Not for Condition {
    type Output = Condition;

    /// `!a`.
    fn not(self) -> Condition {
        Condition::Not(Box::new(self))
    }
}

/// The [`Condition::MaxMessages`] budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MessageBudget {
    /// The number of messages that stops the run.
    pub limit: u64,
    /// Whether tool-call requests and tool results count too (AutoGen's
    /// `include_agent_event`).
    pub events: bool,
}
