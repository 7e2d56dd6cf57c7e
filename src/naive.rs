//! A deliberately naive matcher: the test oracle for the compiled automaton.
//!
//! It keeps the last messages (as many as the longest sequence) and, after each
//! step, compares every sequence backwards against them, evaluating every literal
//! directly on the message, as Langroid does. It is slow by design and shares no
//! code with the compiled side but the `FINAL` detector; the tests check that both
//! agree on every input.
//!
//! ```
//! use doneseq::{DoneSequence, Message};
//! use doneseq::naive::NaiveMatcher;
//!
//! let seq: DoneSequence = "L, U".parse()?;
//! let mut naive = NaiveMatcher::new(&[seq]);
//! assert!(naive.observe(&Message::llm("hi")).is_empty());
//! assert_eq!(naive.observe(&Message::user("bye")), [0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::VecDeque;

use crate::{AgentEvent, DoneSequence, Element, EventKind, Message, Role};

/// The naive matcher (see the module documentation).
#[derive(Clone, Debug)]
pub struct NaiveMatcher {
    sequences: Vec<DoneSequence>,
    window: usize,
    history: VecDeque<Message<'static>>,
}

impl NaiveMatcher {
    /// A matcher for these sequences, with nothing observed.
    #[must_use]
    pub fn new(sequences: &[DoneSequence]) -> NaiveMatcher {
        NaiveMatcher {
            sequences: sequences.to_vec(),
            window: sequences.iter().map(DoneSequence::len).max().unwrap_or(0),
            history: VecDeque::new(),
        }
    }

    /// Observes a message (system messages are not steps and are skipped) and
    /// returns the indices of the sequences that match the latest steps.
    pub fn observe(&mut self, message: &Message) -> Vec<usize> {
        if message.role() == Role::System {
            return Vec::new();
        }
        self.history.push_back(message.clone().into_owned());
        if self.history.len() > self.window {
            self.history.pop_front();
        }
        (0..self.sequences.len())
            .filter(|&s| self.progress(s) == self.sequences[s].len())
            .collect()
    }

    /// The largest `k` such that the first `k` elements of sequence `s` match the
    /// last `k` steps.
    #[must_use]
    pub fn progress(&self, s: usize) -> usize {
        let elements = self.sequences[s].elements();
        (1..=elements.len().min(self.history.len()))
            .rev()
            .find(|&k| {
                let tail = self.history.len() - k;
                (0..k).all(|i| element_holds(&elements[i], &self.history[tail + i]))
            })
            .unwrap_or(0)
    }
}

/// Whether every literal of `element` holds on `message`.
#[must_use]
pub fn element_holds(element: &Element, message: &Message) -> bool {
    element
        .literals()
        .iter()
        .all(|l| event_holds(l.event(), message) != l.is_negated())
}

/// Whether `event` holds on `message`, evaluated directly from its definition.
#[must_use]
pub fn event_holds(event: &AgentEvent, message: &Message) -> bool {
    if let Some(r) = event.responder()
        && message.responder() != Some(r)
    {
        return false;
    }
    let none = message.is_no_response();
    let llm = message.role() == Role::Llm && !none;
    let tools = llm && !message.tool_calls().is_empty();
    match event.kind() {
        EventKind::Tool => tools,
        EventKind::SpecificTool(name) => {
            tools
                && message
                    .tool_calls()
                    .iter()
                    .any(|c| c.name() == name.as_str())
        }
        EventKind::Llm => llm && !tools,
        EventKind::Agent => message.role() == Role::Agent && !none,
        EventKind::User => matches!(message.role(), Role::User | Role::System) && !none,
        EventKind::NoResponse => none,
        EventKind::Content(pattern) => pattern.is_match(message.content()),
        EventKind::Final => crate::answer::detect_final_in_text(message.content()).detected,
        EventKind::Error => message.error().is_some(),
        EventKind::Any => true,
    }
}
