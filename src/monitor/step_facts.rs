//! What `observe` found in a run's latest step, read back from the run: a tool that
//! shows each step's events needs no second classification of the message.

use super::{Classification, Monitor};
use crate::engine;
use crate::{BaseKind, Message};

/// The classification of a run's latest step, as [`Monitor::observe`] computed it
/// ([`Monitor::step_facts`]): the base kind and the matching content patterns come
/// from the run, so no regex runs again; the rest is read from the message.
///
/// Equal facts give equal [`labels`](StepFacts::labels): a tool that prints a row per
/// message can key its labels on these facts and build each distinct list once.
#[derive(Clone, Copy, Debug)]
pub struct StepFacts<'a> {
    monitor: &'a Monitor,
    atoms: &'a [u32],
    message: &'a Message<'a>,
    base: BaseKind,
    final_answer: bool,
}

impl<'a> StepFacts<'a> {
    pub(super) fn new(
        monitor: &'a Monitor,
        atoms: &'a [u32],
        message: &'a Message<'a>,
        final_answer: bool,
    ) -> StepFacts<'a> {
        StepFacts {
            monitor,
            atoms,
            message,
            base: engine::base_kind(message),
            final_answer,
        }
    }

    /// The exclusive base kind (`T`, `L`, `A`, `U` or `N`).
    #[must_use]
    pub fn base(&self) -> BaseKind {
        self.base
    }

    /// The content regexes of the task's done sequences that match, as indices into
    /// [`Monitor::content_patterns`], ascending.
    pub fn patterns(&self) -> impl Iterator<Item = usize> + 'a {
        let classifier = &self.monitor.classifier;
        let base = classifier.pattern_base;
        let end = base + u32::try_from(classifier.content_patterns).unwrap_or(u32::MAX);
        self.atoms
            .iter()
            .filter(move |&&a| (base..end).contains(&a))
            .map(move |&a| (a - base) as usize)
    }

    /// The names of the message's tool calls, in order, a name as often as it is
    /// called (none unless the base kind is [`BaseKind::Tool`]);
    /// [`classification`](StepFacts::classification) lists each name once.
    pub fn tool_names(&self) -> impl Iterator<Item = &'a str> + 'a {
        let calls = if self.base == BaseKind::Tool {
            self.message.tool_calls()
        } else {
            &[]
        };
        calls.iter().map(crate::ToolCall::name)
    }

    /// Whether the content carries a `FINAL` answer (`F`).
    #[must_use]
    pub fn final_answer(&self) -> bool {
        self.final_answer
    }

    /// Whether the message reports an error (`E`).
    #[must_use]
    pub fn error(&self) -> bool {
        self.message.error().is_some()
    }

    /// The responder's name, if any.
    #[must_use]
    pub fn responder(&self) -> Option<&'a str> {
        self.message.responder()
    }

    /// The whole classification, as [`Monitor::classify`] gives it for the message.
    /// Allocates.
    #[must_use]
    pub fn classification(&self) -> Classification {
        let tools = distinct(self.tool_names());
        let sources = self.monitor.content_patterns();
        Classification {
            base: self.base,
            responder: self.responder().map(str::to_owned),
            tools,
            patterns: self.patterns().map(|p| sources[p].to_string()).collect(),
            final_answer: self.final_answer,
            error: self.error(),
        }
    }

    /// The events as DSL text ([`Classification::labels`]). Allocates.
    #[must_use]
    pub fn labels(&self) -> Vec<String> {
        self.classification().labels()
    }
}

/// Each name once, in the order of first call: a set, not a search of the list, as a
/// message may hold tens of thousands of calls.
pub(super) fn distinct<'n>(names: impl Iterator<Item = &'n str>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    names
        .filter(|name| seen.insert(*name))
        .map(str::to_owned)
        .collect()
}
