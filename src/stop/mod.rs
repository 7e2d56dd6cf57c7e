//! Stop conditions that compose: one model for every stop rule of the agent frameworks
//! doneseq subsumes.
//!
//! A [`Condition`] is a tree: built-in tests (done sequences, `FINAL` answers, turn,
//! token and time budgets, errors, tools, text, confidence, reward, loops, cancel,
//! custom conditions registered by name) combined with `&` (all, latched per run),
//! `|` (any) and `!` (not). Put one in [`crate::TaskConfig::stop`]; the
//! [`crate::Monitor`] compiles it with the task's done sequences (all sequences of a
//! task share one automaton) and evaluates it after every message. A stop says what
//! fired and gives a [`crate::VerdictKind`]: `Done`, `Exhausted`, `Stuck`, `Failed`
//! or `Cancelled`.
//!
//! A condition prints as the stop-expression language and parses back from it
//! ([`Condition::parse`], grammar in the [`crate::dsl`] docs, "Stop expressions"), and
//! (de)serializes as tagged objects, also reading awaken's `StopConditionSpec` shapes.
//!
//! A [`TaskConfig`]'s Langroid options are conditions of this language too: the
//! monitor evaluates one tree, [`TaskConfig::lowered`]. The serde forms need the
//! `serde` feature; the algebra itself does not.

pub(crate) mod args;
mod cancel;
mod clock;
mod condition;
#[cfg(feature = "config-files")]
mod config_file;
pub(crate) mod custom;
mod expr;
mod input;
mod kind;
mod lint;
pub(crate) mod loops;
#[cfg(feature = "schema")]
mod schema;
#[cfg(feature = "serde")]
mod spec;
pub(crate) mod table;
pub(crate) mod task;

pub use cancel::CancelHandle;
pub use clock::{Clock, ManualClock, SystemClock};
pub use condition::{
    Condition, ConfidenceMet, CustomCondition, LoopDetection, LoopOver, MessageBudget,
    RewardThreshold, Speaker, TextMention, TextPattern, TokenBudget, ToolCalled, ToolPhase,
};
#[cfg(feature = "config-files")]
pub use config_file::{ConfigFileError, ConfigFileErrorKind, ConfigLanguage, MAX_CONFIG_LEN};
pub use custom::{Convergence, CustomFire, CustomPolicy, Factory, Registry, RunStats, StepView};
pub use expr::{ExprError, ExprErrorKind};
pub use input::{TaskInput, TaskInputError};
pub use kind::VerdictKind;
pub use lint::{Lint, LintKind, LintOptions, Severity, lint};
#[cfg(feature = "schema")]
pub use schema::config_schema;
pub use table::ConditionId;
pub use task::{ORCHESTRATION_TOOLS, TaskConfig};

/// The longest cycle [`Condition::Loop`] may look for.
pub const MAX_LOOP_PERIOD: u32 = 64;

/// The most repeats [`Condition::Loop`] may ask for.
pub const MAX_LOOP_REPEATS: u32 = 64;

/// The most nodes (built-ins and combinators) one condition tree may have.
pub const MAX_CONDITION_NODES: usize = 4096;

/// The deepest nesting of combinators in one condition tree (also the expression
/// language's nesting limit, so that parsing cannot overflow the stack).
///
/// With [`MAX_VALUE_DEPTH`], it keeps every valid tree readable back from its JSON
/// form by `serde_json`, whose reader refuses more than 128 levels: a combinator is
/// two levels there (`{"type": "all", "of": [...]}`), so the deepest tree and the
/// deepest value inside it take 2 × 32 + 2 + 32 = 98, leaving 30 for the documents
/// that embed it.
pub const MAX_CONDITION_DEPTH: usize = 32;

/// The deepest nesting of a JSON value inside a condition (a tool's `args`, a custom
/// condition's `config`): `{"a": [1]}` is 2 levels. See [`MAX_CONDITION_DEPTH`] for
/// why.
pub const MAX_VALUE_DEPTH: usize = 32;

/// The longest stop expression, in bytes.
pub const MAX_EXPRESSION_LEN: usize = 64 * 1024;
