//! The limits of a compiled task, and the error that names the one exceeded.

/// The most sequences one monitor compiles.
pub const MAX_SEQUENCES: usize = 4096;

/// The most element positions (elements over all sequences, repeats counted) one
/// monitor compiles: 65,536 positions are 1,024 words of automaton state.
pub const MAX_POSITIONS: usize = 65_536;

/// The most distinct content regexes one monitor compiles into its regex set.
pub const MAX_TASK_PATTERNS: usize = 1024;

/// The compiled size limit of a task's whole regex set, in bytes (each regex alone is
/// bounded by [`crate::MAX_REGEX_SIZE`]).
pub const MAX_REGEX_SET_SIZE: usize = 32 << 20;

/// Why a task's sequences could not be compiled: a resource limit.
///
/// ```
/// use doneseq::{CompileError, Monitor, TaskConfig, MAX_SEQUENCES};
///
/// let config = TaskConfig::from_dsl(vec!["T, A"; MAX_SEQUENCES + 1])?;
/// let err = Monitor::new(config).unwrap_err();
/// assert!(matches!(err, CompileError::TooManySequences { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CompileError {
    /// More sequences than [`MAX_SEQUENCES`].
    #[error("too many done sequences: {count} (at most {max})")]
    TooManySequences {
        /// How many were given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// More element positions than [`MAX_POSITIONS`].
    #[error("too many elements over all done sequences: {count} (at most {max})")]
    TooManyPositions {
        /// How many were given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// More distinct content regexes than [`MAX_TASK_PATTERNS`].
    #[error("too many distinct content regexes: {count} (at most {max})")]
    TooManyPatterns {
        /// How many were given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// The task's regexes together compile to more than [`MAX_REGEX_SET_SIZE`].
    #[error("the content regexes together are too big to compile: {detail}")]
    RegexSetTooBig {
        /// The regex engine's message.
        detail: String,
    },
    /// The stop condition is out of bounds (too many nodes, too deep, a loop period
    /// or threshold out of range): what [`crate::stop::Condition::validate`] found, with
    /// its position in the tree's text.
    #[error("invalid stop condition: {0}")]
    InvalidCondition(crate::stop::ExprError),
    /// A `tool_classes` entry with an empty class name or an invalid request name.
    #[error("tool_classes: {class:?} -> {request:?}: a class needs a non-empty request name")]
    InvalidToolClass {
        /// The class name.
        class: String,
        /// The request name given.
        request: String,
    },
    /// A custom condition is not registered, or refused its configuration.
    #[error("custom condition '{name}': {message}")]
    Custom {
        /// Its name.
        name: String,
        /// What is wrong.
        message: String,
    },
}
