//! Decide when an LLM agent's loop is done.
//!
//! doneseq reads *done sequences*, short patterns over the messages of an agent task
//! such as `"T[calculator], A"` ("the LLM called the calculator, then the agent
//! answered"), in a DSL compatible with Langroid's `done_sequences`, and turns them
//! into typed values.
//!
//! # Overview
//!
//! - [`DoneSequence`]: a parsed sequence; `FromStr` and a canonical `Display` that
//!   parses back to an equal value. It is made of [`Element`]s, each a conjunction of
//!   [`Literal`]s, each a possibly negated [`AgentEvent`].
//! - [`AgentEvent`]: one atom (`T`, `T[name]`, `A`, `L`, `U`, `N`, `C[regex]`, `F`,
//!   `E`, `_`), optionally narrowed to a responder (`A@Database`); its kind is an
//!   [`EventKind`].
//! - [`ParseError`]: what went wrong, with a byte span; `{:#}` draws a caret.
//! - [`DoneSequences`]: a task's list of sequences, whose errors name the bad entry.
//! - [`SequenceObject`]: the object form with Langroid's field names (`event_type`,
//!   `tool_name`, `content_pattern`, `responder`).
//!
//! # Example: parse a sequence
//!
//! ```
//! use doneseq::{DoneSequence, EventKind, ToolName};
//!
//! let seq: DoneSequence = "TOOL[calculator], agent".parse()?;
//! assert_eq!(seq.len(), 2);
//! assert_eq!(
//!     seq.elements()[0].literals()[0].event().kind(),
//!     &EventKind::SpecificTool(ToolName::new("calculator")?),
//! );
//! // Display is canonical: letters, not words.
//! assert_eq!(seq.to_string(), "T[calculator], A");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Example: an error with its position
//!
//! ```
//! use doneseq::{DoneSequence, ParseErrorKind};
//!
//! let err = DoneSequence::parse("T[calculator], C[(]").unwrap_err();
//! assert!(matches!(err.kind(), ParseErrorKind::InvalidRegex { .. }));
//! assert_eq!(&err.input()[err.span()], "(");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Syntax
//!
//! The grammar, every extension and every difference from Langroid are in the
//! [`dsl`] module's documentation (the crate's `grammar.md`).
//!
//! # Crate features
//!
//! - `serde` (default): `Serialize`/`Deserialize` for sequences (as DSL text, or from
//!   Langroid-style objects), events, [`DoneSequences`], the object form, stop
//!   conditions and task configurations; `Serialize` for verdicts, outcomes,
//!   explanations and classifications; the run state's checkpoints; [`compat`].
//! - `json`: the transcript readers ([`transcript`]).
//! - `config-files`: task configuration files in JSON, TOML or YAML
//!   ([`TaskConfig::from_file`]); it pulls in toml and serde_norway (YAML).
//! - `cli` (default): the `doneseq` binary (and `config-files`); it pulls in clap.
//!   Library users can turn it off with `default-features = false, features =
//!   ["serde"]`.
//! - `oracle`: the `naive` module, the reference matcher the tests and fuzzers compare with
//!   (test support, not covered by semver).
#![cfg_attr(docsrs, feature(doc_cfg))]
// The crate parses text from outside (configs, model output): no unsafe code, so a bug
// is at worst a wrong answer or an error, never memory corruption.
#![forbid(unsafe_code)]
#![deny(missing_docs, rustdoc::broken_intra_doc_links)]

pub mod answer;
#[cfg(feature = "serde")]
pub mod compat;
#[cfg(feature = "json")]
pub mod corpus;
pub mod dsl;
mod engine;
#[cfg(feature = "json")]
mod json_string;
mod list;
mod message;
mod monitor;
#[cfg(feature = "oracle")]
#[cfg_attr(docsrs, doc(cfg(feature = "oracle")))]
pub mod naive;
pub mod object;
#[cfg(feature = "serde")]
mod serde_impl;
pub mod stop;
mod text;
#[cfg(feature = "json")]
pub mod transcript;

pub use crate::answer::{
    AnswerValue, FinalDetection, FinalDetector, FinalKind, FinalMatch, FinalOptions,
    detect_final_in_code, detect_final_in_text,
};
pub use crate::dsl::ContentPattern;
pub use crate::dsl::{AgentEvent, BaseKind, EventKind, ToolName};
pub use crate::dsl::{DoneSequence, Element, Literal, ParseError, ParseErrorKind};
pub use crate::engine::limits::{
    CompileError, MAX_POSITIONS, MAX_REGEX_SET_SIZE, MAX_SEQUENCES, MAX_TASK_PATTERNS,
};
pub use crate::list::{DoneSequences, ListError};
pub use crate::message::{Message, Role, RoleError, ToolCall, Usage};
pub use crate::monitor::{
    Answer, AnswerSource, Classification, ConditionReport, Evidence, Failure, FiredCondition,
    Monitor, NodeId, Outcome, Replay, ReplayStep, RunState, SequenceMatch, SequenceProgress,
    StateError, StepFacts, StopReason, TokenBudgetEvidence, Verdict,
};
pub use crate::object::{EventType, ObjectError, SequenceObject};
pub use crate::stop::{TaskConfig, VerdictKind};
pub use crate::text::SyntaxError;
pub use crate::text::{
    BacktrackLimit, MAX_BACKTRACK, MAX_PATTERN_LEN, MAX_REGEX_FOLD_WORK, MAX_REGEX_MEMORY,
    MAX_REGEX_SIZE,
};

/// Any error doneseq reports, by phase: every error type of the crate converts into
/// it with `?`, so an application can hold one error type.
///
/// ```
/// use doneseq::stop::Condition;
/// use doneseq::{DoneSequence, Error, Monitor, TaskConfig};
///
/// fn load(sequence: &str, stop: &str) -> Result<Monitor, Error> {
///     let mut config = TaskConfig::default();
///     config.done_sequences = vec![DoneSequence::parse(sequence)?].into();
///     config.stop = Some(Condition::parse(stop)?);
///     Ok(Monitor::new(config)?)
/// }
/// assert!(matches!(load("T A", "final"), Err(Error::Parse(_))));
/// assert!(matches!(load("T, A", "max_turns("), Err(Error::Expr(_))));
/// assert!(load("T, A", "final | max_turns(10)").is_ok());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// DSL text did not parse.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// An object-form sequence was invalid.
    #[error(transparent)]
    Object(#[from] ObjectError),
    /// An entry of a list of sequences was invalid.
    #[error(transparent)]
    List(#[from] ListError),
    /// A stop expression did not parse, or a condition built in code is invalid.
    #[error(transparent)]
    Expr(#[from] stop::ExprError),
    /// A task did not compile into a monitor.
    #[error(transparent)]
    Compile(#[from] CompileError),
    /// A checkpoint could not be resumed.
    #[error(transparent)]
    State(#[from] StateError),
    /// A role name was not one of the roles.
    #[error(transparent)]
    Role(#[from] RoleError),
    /// A `FINAL` pattern policy's configuration was invalid.
    #[error(transparent)]
    FinalPattern(#[from] answer::PolicyError),
    /// A `FINAL_VAR` named a variable that does not exist.
    #[error(transparent)]
    Resolve(#[from] answer::ResolveError),
    /// A peer framework's configuration could not be mapped to a condition.
    #[cfg(feature = "serde")]
    #[error(transparent)]
    Compat(#[from] compat::CompatError),
    /// A transcript could not be read.
    #[cfg(feature = "json")]
    #[error(transparent)]
    Transcript(#[from] transcript::TranscriptError),
}

// The README's examples run as doctests, so that they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
