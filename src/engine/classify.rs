//! Classification: a message becomes its base kind, its responder and the atoms it
//! has, once, whatever the number of sequences.

use std::collections::HashMap;

use regex_automata::{Input, PatternID, PatternSet, meta};
use smallvec::SmallVec;

use crate::answer::FinalDetector;
use crate::text::Backtracking;
use crate::{BaseKind, Message, Role};

/// The base kind of a message, as Langroid's `Task` decides it, with the
/// fix that a step without a valid response really is `N`: no response first, then
/// LLM with tool calls `T`, LLM without `L`, agent `A`, user `U`. System messages are
/// not steps and never reach here; if one does, it counts as a user message (input
/// from outside the agent).
#[must_use]
pub(crate) fn base_kind(message: &Message) -> BaseKind {
    if message.is_no_response() {
        return BaseKind::NoResponse;
    }
    match message.role() {
        Role::Llm if message.tool_calls().is_empty() => BaseKind::Llm,
        Role::Llm => BaseKind::Tool,
        Role::Agent => BaseKind::Agent,
        Role::User | Role::System => BaseKind::User,
    }
}

/// Whether the content carries a usable `FINAL(...)`/`FINAL_VAR(...)`/`SUBMIT(...)`
/// answer: detected, and not ambiguous (two conflicting signals hold no answer).
pub(crate) fn has_final(detector: &FinalDetector, content: &str) -> bool {
    detector.find(content).is_some_and(|m| !m.is_ambiguous())
}

/// A message, classified: borrowed from the scratch that holds its atoms.
#[derive(Debug)]
pub(crate) struct Classified<'s> {
    pub(crate) base: BaseKind,
    pub(crate) responder: Option<u32>,
    /// The non-exclusive atoms the message has (tool names, regexes, `F`, `E`,
    /// compounds), each once.
    pub(crate) atoms: &'s [u32],
    /// Which regexes of the set matched (the sequences' and the stop tree's). A
    /// content regex that needs backtracking is there when its relaxed form matched:
    /// `atoms` says whether the regex itself did (the stop tree reads only its
    /// `text(...)` regexes here, which never need backtracking).
    pub(crate) matched: Option<&'s PatternSet>,
    /// The first content regex whose backtracking search passed its limit on this
    /// message (taken as not matching, and counted by the run).
    pub(crate) overrun: Option<u32>,
}

/// A conjunction the rows cannot express alone: a negated event with several parts
/// (`!A@db`), or an element that needs two non-exclusive atoms (`C[a] & C[b]`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Compound {
    pub(crate) base: Option<BaseKind>,
    pub(crate) responder: Option<u32>,
    pub(crate) atoms: SmallVec<[u32; 2]>,
}

/// What a task's sequences need to know of a message, compiled.
#[derive(Clone, Debug)]
pub(crate) struct Classifier {
    pub(crate) tools: HashMap<Box<str>, u32>,
    pub(crate) responders: HashMap<Box<str>, u32>,
    /// The distinct content regexes, as written; atom ids `pattern_base..`.
    pub(crate) pattern_sources: Vec<Box<str>>,
    /// How many regexes of the set are the sequences' (atoms); the stop tree's
    /// `text(...)` regexes follow them, read by the plan.
    pub(crate) content_patterns: usize,
    pub(crate) pattern_base: u32,
    pub(crate) patterns: Option<Patterns>,
    pub(crate) final_atom: Option<u32>,
    pub(crate) error_atom: Option<u32>,
    pub(crate) compounds: Vec<Compound>,
    pub(crate) compound_base: u32,
    pub(crate) detector: FinalDetector,
}

/// A task's content regexes as one set (see `compile::build_set`).
#[derive(Clone, Debug)]
pub(crate) struct Patterns {
    /// Leftmost-first: whether any regex matches (fast, with a prefilter).
    pub(crate) any: meta::Regex,
    /// Overlapping: which regexes match.
    pub(crate) all: meta::Regex,
    /// The regexes of the set that are the relaxed forms of patterns needing
    /// backtracking, with their exact forms: confirmed where the set matches them.
    pub(crate) exact: Vec<(PatternID, Backtracking)>,
}

impl Patterns {
    /// Puts into `set` the regexes that match `content`, and into `rejected` those
    /// of them whose exact forms do not (a `PatternSet` has no removal); returns the
    /// first whose backtracking search passed its limit (rejected too).
    fn matches(&self, content: &str, set: &mut PatternSet, rejected: &mut Vec<u32>) -> Option<u32> {
        set.clear();
        rejected.clear();
        let input = Input::new(content);
        if !self.any.is_match(input.clone()) {
            return None;
        }
        self.all.which_overlapping_matches(&input, set);
        let mut overrun = None;
        for (id, exact) in &self.exact {
            if set.contains(*id) {
                let confirmed = exact.is_match(content);
                if confirmed != Ok(true) {
                    rejected.push(id.as_u32());
                }
                if confirmed.is_err() {
                    overrun.get_or_insert(id.as_u32());
                }
            }
        }
        overrun
    }

    fn len(&self) -> usize {
        self.all.pattern_len()
    }
}

/// Reusable buffers for classification, kept in the run state.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClassifyScratch {
    atoms: Vec<u32>,
    patset: Option<PatternSet>,
    /// The regexes of `patset` whose exact forms did not match.
    rejected: Vec<u32>,
}

impl ClassifyScratch {
    /// The atoms of the message classified last (empty before the first).
    pub(crate) fn atoms(&self) -> &[u32] {
        &self.atoms
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        (self.atoms.capacity() + self.rejected.capacity()) * 4
            + self.patset.as_ref().map_or(0, PatternSet::capacity)
    }
}

impl Classifier {
    /// A scratch that never needs to grow: room for every atom (a message has each
    /// at most once) and for every regex of the set.
    pub(crate) fn scratch(&self) -> ClassifyScratch {
        ClassifyScratch {
            atoms: Vec::with_capacity(self.compound_base as usize + self.compounds.len()),
            patset: self.patterns.as_ref().map(|set| PatternSet::new(set.len())),
            rejected: Vec::with_capacity(self.patterns.as_ref().map_or(0, |set| set.exact.len())),
        }
    }

    /// Classifies `message` into `scratch` (no allocation once the scratch is warm).
    /// `final_answer` is the message's `FINAL` fact, computed once by the caller (it
    /// is read here only when a sequence uses `F`).
    pub(crate) fn classify<'s>(
        &self,
        message: &Message,
        final_answer: bool,
        scratch: &'s mut ClassifyScratch,
    ) -> Classified<'s> {
        let base = base_kind(message);
        let responder = message
            .responder()
            .and_then(|r| self.responders.get(r).copied());
        let atoms = &mut scratch.atoms;
        atoms.clear();
        let mut overrun = None;
        if base == BaseKind::Tool {
            for call in message.tool_calls() {
                if let Some(&id) = self.tools.get(call.name())
                    && !atoms.contains(&id)
                {
                    atoms.push(id);
                }
            }
        }
        if let Some(set) = &self.patterns {
            let patset = scratch
                .patset
                .get_or_insert_with(|| PatternSet::new(set.len()));
            let rejected = &mut scratch.rejected;
            overrun = set.matches(message.content(), patset, rejected);
            let contents = self.content_patterns;
            // Most messages match no regex; iterating an empty set still walks
            // every regex's slot.
            if !patset.is_empty() {
                atoms.extend(
                    patset
                        .iter()
                        .filter(|p| p.as_usize() < contents && !rejected.contains(&p.as_u32()))
                        .map(|p| self.pattern_base + p.as_u32()),
                );
            }
        }
        if let Some(id) = self.final_atom
            && final_answer
        {
            atoms.push(id);
        }
        if let Some(id) = self.error_atom
            && message.error().is_some()
        {
            atoms.push(id);
        }
        let primitive = atoms.len();
        for (i, c) in self.compounds.iter().enumerate() {
            let holds = c.base.is_none_or(|b| b == base)
                && c.responder.is_none_or(|r| responder == Some(r))
                && c.atoms.iter().all(|a| atoms[..primitive].contains(a));
            if holds {
                #[allow(clippy::cast_possible_truncation)] // bounded by MAX_POSITIONS
                atoms.push(self.compound_base + i as u32);
            }
        }
        Classified {
            base,
            responder,
            atoms: &scratch.atoms,
            matched: scratch.patset.as_ref(),
            overrun,
        }
    }

    /// The indices of the content regexes that match `content`.
    pub(crate) fn matching_patterns(&self, content: &str) -> Vec<usize> {
        let Some(set) = &self.patterns else {
            return Vec::new();
        };
        let mut patset = PatternSet::new(set.len());
        let mut rejected = Vec::new();
        set.matches(content, &mut patset, &mut rejected);
        patset
            .iter()
            .filter(|p| p.as_usize() < self.content_patterns && !rejected.contains(&p.as_u32()))
            .map(|p| p.as_usize())
            .collect()
    }
}
