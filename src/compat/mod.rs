//! Compatibility faces: awaken's stop-policy specs and rlm-code's policy registry,
//! each mapped onto a [`Condition`](crate::stop::Condition). (The Python frameworks' own APIs, such as
//! locus's constructors and rlm-code's `should_terminate`, are hosted by the Python
//! package, where their users are.)
//!
//! Port a configuration with the names it was written with; what comes out is an
//! ordinary condition tree, which the monitor evaluates like any other. Each face is
//! thin, and says where the peer's behaviour and ours differ and what was chosen:
//!
//! - [`awaken`]: `StopConditionSpec` (the same serde shape, `{"type": "max_rounds",
//!   "rounds": 10}`), `policies_from_specs`, and `StopDecision` from a
//!   [`crate::Verdict`];
//! - [`rlm`]: `termination_policy(name, config)`, rlm-code's
//!   `PolicyRegistry.get_termination`.
//!
//! Nothing is dropped on the way: a spec or a configuration that the peer reads as
//! "disabled", or that would mean something else here, is a [`CompatError`] that says
//! so and what to write instead.

pub mod awaken;
pub mod rlm;

use std::fmt;

use crate::ParseError;

/// Why a peer's configuration could not be mapped to a condition.
///
/// ```
/// use doneseq::compat::{CompatError, awaken::StopConditionSpec};
/// use doneseq::stop::Condition;
///
/// let err = Condition::try_from(StopConditionSpec::MaxRounds { rounds: 0 }).unwrap_err();
/// assert!(matches!(err, CompatError::Disabled { spec: "max_rounds", field: "rounds" }));
/// assert!(err.to_string().starts_with("max_rounds.rounds is 0"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CompatError {
    /// An awaken spec with a 0 limit (or an empty name or pattern), which awaken reads
    /// as "this policy is disabled". doneseq has no disabled conditions: leave the spec
    /// out.
    #[error(
        "{spec}.{field} is {}, which awaken reads as \"disabled\"; doneseq does not \
         drop conditions: remove this spec to disable it",
        if matches!(*field, "tool_name" | "pattern") { "empty" } else { "0" }
    )]
    Disabled {
        /// The spec's `type` (`max_rounds`, `timeout`, ...).
        spec: &'static str,
        /// The field that is 0 or empty.
        field: &'static str,
    },
    /// An awaken `loop_detection` window below 2: one text cannot repeat.
    #[error(
        "loop_detection.window is {window}: a loop needs at least 2 identical texts \
         (awaken reads a window below 2 as \"disabled\"; remove this spec to disable it)"
    )]
    WindowTooSmall {
        /// The window given.
        window: usize,
    },
    /// An awaken `loop_detection` window above [`crate::stop::MAX_LOOP_REPEATS`]
    /// (awaken's validation refuses it too, and a policy built in code with such a
    /// window never fires).
    #[error("loop_detection.window is {window}: at most {max} repeats are looked for")]
    WindowTooLarge {
        /// The window given.
        window: usize,
        /// The largest allowed.
        max: u32,
    },
    /// A regex that does not compile, is empty or is too big.
    #[error("invalid pattern: {error}")]
    InvalidPattern {
        /// What the regex parser said, with the span in the pattern.
        error: ParseError,
    },
    /// An entry of a list failed.
    #[error("{list}[{index}]: {error}")]
    AtIndex {
        /// Which list (`specs`, `policies`, `final_patterns`).
        list: &'static str,
        /// The entry's index.
        index: usize,
        /// What was wrong with it.
        error: Box<CompatError>,
    },
    /// An empty list of specs: it would never stop anything.
    #[error("no stop conditions: an empty list never stops a run")]
    EmptyList,
    /// rlm-code: a policy name that is not registered.
    #[error("unknown termination policy {name:?}; available: {}", Names(available))]
    UnknownPolicy {
        /// The name given.
        name: String,
        /// The names there are.
        available: Vec<&'static str>,
    },
    /// rlm-code: a configuration key that the policy does not have (rlm-code keeps it
    /// and never reads it).
    #[error(
        "{policy}: unknown configuration key {key:?}; known keys: {}",
        Names(known)
    )]
    UnknownKey {
        /// The policy's name.
        policy: &'static str,
        /// The key given.
        key: String,
        /// The keys the policy reads.
        known: &'static [&'static str],
    },
    /// rlm-code: a configuration value of the wrong type or out of range.
    #[error("{policy}.{key}: expected {expected}, found {found}")]
    InvalidValue {
        /// The policy's name.
        policy: &'static str,
        /// The key.
        key: &'static str,
        /// What was expected.
        expected: &'static str,
        /// What was given (as JSON).
        found: String,
    },
    /// rlm-code: a configuration that a condition cannot express, or would express
    /// differently; the message says what to write instead.
    #[error("{policy}.{key}: {reason}")]
    Unsupported {
        /// The policy's name.
        policy: &'static str,
        /// The key.
        key: &'static str,
        /// Why, and what to do.
        reason: &'static str,
    },
    /// rlm-code: a composite without sub-policies (rlm-code's AND of nothing stops at
    /// once, its OR of nothing never does).
    #[error("composite: no policies to combine")]
    EmptyComposite,
    /// rlm-code: composites nested deeper than [`crate::stop::MAX_CONDITION_DEPTH`].
    #[error("composite: nested deeper than {max} levels")]
    TooDeep {
        /// The deepest nesting allowed.
        max: usize,
    },
}

/// A list of names, quoted and separated by commas.
struct Names<'a>(&'a [&'static str]);

impl fmt::Display for Names<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name:?}")?;
        }
        Ok(())
    }
}
