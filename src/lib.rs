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
//!   Langroid-style objects), events, [`DoneSequences`] and the object form.
//! - `cli` (default): the `doneseq` binary; it pulls in clap, serde_json, toml and
//!   serde_norway (YAML). Library users can turn it off with
//!   `default-features = false, features = ["serde"]`.
#![cfg_attr(docsrs, feature(doc_cfg))]
// The crate parses text from outside (configs, model output): no unsafe code, so a bug
// is at worst a wrong answer or an error, never memory corruption.
#![forbid(unsafe_code)]
#![deny(missing_docs, rustdoc::broken_intra_doc_links)]

pub mod answer;
#[cfg(feature = "serde")]
pub mod compat;
pub mod dsl;
mod engine;
mod event;
mod list;
mod message;
mod monitor;
pub mod naive;
pub mod object;
mod pattern;
mod regex_cost;
#[cfg(feature = "serde")]
mod serde_impl;
pub mod stop;
#[cfg(feature = "json")]
pub mod transcript;

pub use crate::answer::{
    AnswerValue, FinalDetection, FinalDetector, FinalKind, FinalMatch, FinalOptions,
    detect_final_in_code, detect_final_in_text,
};
pub use crate::dsl::{DoneSequence, Element, Literal, ParseError, ParseErrorKind};
pub use crate::engine::limits::{
    CompileError, MAX_POSITIONS, MAX_REGEX_SET_SIZE, MAX_SEQUENCES, MAX_TASK_PATTERNS,
};
pub use crate::event::{AgentEvent, BaseKind, EventKind, ToolName};
pub use crate::list::{DoneSequences, ListError};
pub use crate::message::{Message, Role, RoleError, ToolCall, Usage};
pub use crate::monitor::{
    Answer, AnswerSource, Classification, ConditionReport, Evidence, Failure, FiredCondition,
    Monitor, NodeId, Outcome, Replay, ReplayStep, RunState, SequenceMatch, SequenceProgress,
    StateError, StopReason, TokenBudgetEvidence, Verdict,
};
pub use crate::object::{EventType, ObjectError, SequenceObject};
pub use crate::pattern::{
    ContentPattern, MAX_PATTERN_LEN, MAX_REGEX_FOLD_WORK, MAX_REGEX_MEMORY, MAX_REGEX_SIZE,
};
pub use crate::stop::{TaskConfig, VerdictKind};

/// Any error doneseq reports while building values, by phase.
///
/// ```
/// use doneseq::{DoneSequence, Error};
///
/// fn load(text: &str) -> Result<DoneSequence, Error> {
///     Ok(DoneSequence::parse(text)?)
/// }
/// assert!(matches!(load("T A"), Err(Error::Parse(_))));
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
}

// The README's examples run as doctests, so that they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
