//! The task monitor: a task's done sequences and Langroid's options, compiled once,
//! observing the messages of any number of runs.

mod config;
mod explain;
mod signal;
pub(crate) mod state;
mod verdict;

pub use config::TaskConfig;
pub use explain::{Failure, SequenceProgress};
pub use state::RunState;
#[cfg(feature = "serde")]
pub(crate) use state::Scratch;
pub use verdict::{Answer, AnswerSource, Outcome, SequenceMatch, StopReason, Verdict, VerdictKind};

use smallvec::smallvec;

use crate::engine::{self, Automaton, Classifier, limits::CompileError};
use crate::{BaseKind, DoneSequence, Message, Role};

/// A compiled task: classifies each message once, advances all done sequences in one
/// automaton, and applies Langroid's options in Langroid's order.
///
/// A `Monitor` is read-only and `Send + Sync`: share one (e.g. in an `Arc`) between
/// any number of runs and threads, each with its own [`RunState`].
///
/// # Example
///
/// ```
/// use doneseq::{Message, Monitor, StopReason, TaskConfig, ToolCall, Verdict};
///
/// let monitor = Monitor::new(TaskConfig::from_dsl(["calc: T[calculator], A"])?)?;
/// let mut run = monitor.start();
/// let transcript = [
///     Message::user("What is 6 times 7?"),
///     Message::llm("").with_tool_call(ToolCall::new("calculator", r#"{"x": "6*7"}"#)),
///     Message::agent("42"),
/// ];
/// let verdicts: Vec<Verdict> = transcript.iter().map(|m| monitor.observe(&mut run, m)).collect();
/// assert!(!verdicts[1].is_stop());
/// let outcome = verdicts[2].outcome().unwrap();
/// assert_eq!(outcome.reason, StopReason::Sequence(0));
/// assert_eq!(outcome.fired[0].matched, 1..=2);
/// assert_eq!(outcome.answer.as_ref().unwrap().text, "42");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Monitor {
    config: TaskConfig,
    classifier: Classifier,
    automaton: Automaton,
    fingerprint: u64,
}

/// A [`RunState`] that cannot be resumed by this monitor.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The state was made by a monitor with other sequences or options.
    #[error("the run state belongs to another monitor (its sequences or options differ)")]
    Foreign,
    /// The state's automaton words do not fit this monitor.
    #[error("the run state is corrupt: {0}")]
    Corrupt(&'static str),
}

/// How one message was classified: the events it satisfies, for display and tests.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Classification {
    /// The exclusive base kind (`T`, `L`, `A`, `U` or `N`).
    pub base: BaseKind,
    /// The responder's name, if any.
    pub responder: Option<String>,
    /// The names of the tool calls (for a tool message), in order, without repeats.
    pub tools: Vec<String>,
    /// The task's content regexes that match, as written, in the task's order.
    pub patterns: Vec<String>,
    /// Whether the content carries a `FINAL` answer (`F`).
    pub final_answer: bool,
    /// Whether the message reports an error (`E`).
    pub error: bool,
}

impl Classification {
    /// The events as DSL text: the base letter, then `T[name]` per tool, `C[regex]`
    /// per matching regex, `F`, `E`, and `@responder`.
    ///
    /// ```
    /// use doneseq::{Message, Monitor, TaskConfig, ToolCall};
    ///
    /// let monitor = Monitor::new(TaskConfig::from_dsl(["C[sum]"])?)?;
    /// let message = Message::llm("sum it").with_tool_call(ToolCall::new("add", "{}"));
    /// assert_eq!(monitor.classify(&message).labels(), ["T", "T[add]", "C[sum]"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn labels(&self) -> Vec<String> {
        let base = match self.base {
            BaseKind::Tool => "T",
            BaseKind::Llm => "L",
            BaseKind::Agent => "A",
            BaseKind::User => "U",
            BaseKind::NoResponse => "N",
        };
        let mut labels = vec![base.to_owned()];
        labels.extend(self.tools.iter().map(|t| format!("T[{t}]")));
        labels.extend(self.patterns.iter().map(|p| format!("C[{p}]")));
        if self.final_answer {
            labels.push("F".to_owned());
        }
        if self.error {
            labels.push("E".to_owned());
        }
        if let Some(r) = &self.responder {
            labels.push(format!("@{r}"));
        }
        labels
    }
}

impl Monitor {
    /// Compiles a task configuration.
    ///
    /// # Errors
    ///
    /// A [`CompileError`] when a resource limit is exceeded: more than
    /// [`crate::MAX_SEQUENCES`] sequences, [`crate::MAX_POSITIONS`] elements in all,
    /// [`crate::MAX_TASK_PATTERNS`] distinct regexes, or a regex set bigger than
    /// [`crate::MAX_REGEX_SET_SIZE`].
    pub fn new(config: TaskConfig) -> Result<Monitor, CompileError> {
        let (classifier, automaton) = engine::compile(&config.done_sequences)?;
        let fingerprint = fingerprint(&config);
        Ok(Monitor {
            config,
            classifier,
            automaton,
            fingerprint,
        })
    }

    /// The configuration this monitor was compiled from.
    #[must_use]
    pub const fn config(&self) -> &TaskConfig {
        &self.config
    }

    /// The done sequences, in the task's order.
    #[must_use]
    pub fn sequences(&self) -> &[DoneSequence] {
        &self.config.done_sequences
    }

    /// A fresh run: nothing observed yet.
    #[must_use]
    pub fn start(&self) -> RunState {
        let words = self.automaton.words;
        RunState {
            fingerprint: self.fingerprint,
            steps: 0,
            bits: smallvec![0; words],
            prev: smallvec![0; words],
            stopped_at: None,
            scratch: state::Scratch::default(),
        }
    }

    /// Checks that a run state (e.g. a deserialized checkpoint) belongs to this
    /// monitor, and returns it ready to observe.
    ///
    /// # Errors
    ///
    /// [`StateError::Foreign`] if it was made by a monitor with other sequences or
    /// options, [`StateError::Corrupt`] if its automaton bits do not fit or claim more
    /// progress than its step count allows.
    pub fn resume(&self, mut state: RunState) -> Result<RunState, StateError> {
        if state.fingerprint != self.fingerprint {
            return Err(StateError::Foreign);
        }
        let words = self.automaton.words;
        if state.bits.len() != words || state.prev.len() != words {
            return Err(StateError::Corrupt("wrong number of automaton words"));
        }
        let beyond = |bits: &[u64]| {
            let used = self.automaton.positions() % 64;
            used != 0 && bits.last().is_some_and(|w| w >> used != 0)
        };
        if beyond(&state.bits) || beyond(&state.prev) {
            return Err(StateError::Corrupt("bits set beyond the last element"));
        }
        if state.stopped_at.is_some_and(|s| s >= state.steps) {
            return Err(StateError::Corrupt("stopped at a step not yet taken"));
        }
        // A sequence cannot have more elements satisfied than steps were taken (the
        // match it reports would start before the run did).
        let ahead = |bits: &[u64], steps: u64| {
            (0..self.config.done_sequences.len())
                .any(|s| self.automaton.progress(bits, s) as u64 > steps)
        };
        if ahead(&state.bits, state.steps) || ahead(&state.prev, state.steps.saturating_sub(1)) {
            return Err(StateError::Corrupt(
                "more elements satisfied than steps taken",
            ));
        }
        state.scratch = state::Scratch::default();
        Ok(state)
    }

    /// Observes the next message of a run and says whether the task ends here.
    ///
    /// A system message is not a step: it changes nothing and gives
    /// [`Verdict::Continue`]. Every other message is one step, classified once. The
    /// rules apply in Langroid's order: `done_if_tool`, the done sequences (the
    /// first in list order wins), the `DONE` string signal, `done_if_response`,
    /// `done_if_no_response`, `single_round`, then `max_turns` (so a sequence that
    /// matches on the last allowed turn still gives [`VerdictKind::Done`]).
    ///
    /// Observing after a stop goes on matching (a replay may want every match);
    /// [`RunState::stopped_at`] keeps the first stop.
    ///
    /// In the steady state this does not allocate unless the task stops here.
    ///
    /// # Panics
    ///
    /// If `state` was made by another monitor. States from outside (deserialized
    /// checkpoints) go through [`Monitor::resume`] first, which checks this.
    pub fn observe(&self, state: &mut RunState, message: &Message) -> Verdict {
        assert!(
            state.fingerprint == self.fingerprint && state.bits.len() == self.automaton.words,
            "RunState from another Monitor (use Monitor::resume to check a checkpoint)"
        );
        if message.role() == Role::System {
            return Verdict::Continue;
        }
        let at = state.steps;
        // Saturating: only a forged checkpoint can be 2^64 steps old.
        state.steps = state.steps.saturating_add(1);
        state.prev.copy_from_slice(&state.bits);
        let scratch = &mut state.scratch;
        let classified = self.classifier.classify(message, &mut scratch.classify);
        let base = classified.base;
        let hit = self
            .automaton
            .step(&mut state.bits, &classified, &mut scratch.step);
        let reason = self.reason(state, message, base, hit);
        let Some(reason) = reason else {
            return Verdict::Continue;
        };
        state.stopped_at.get_or_insert(at);
        let fired = if hit {
            self.automaton
                .fired(&state.bits)
                .map(|s| {
                    let len = self.config.done_sequences[s].len() as u64;
                    SequenceMatch {
                        sequence: s,
                        matched: at - (len - 1)..=at,
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        let kind = match reason {
            StopReason::MaxTurns(_) => VerdictKind::Exhausted,
            _ => VerdictKind::Done,
        };
        let answer = signal::answer(message, &reason);
        Verdict::Stop(Outcome {
            kind,
            reason,
            at,
            fired,
            answer,
        })
    }

    /// The first rule that ends the task at this step, in Langroid's order.
    fn reason(
        &self,
        state: &RunState,
        message: &Message,
        base: BaseKind,
        hit: bool,
    ) -> Option<StopReason> {
        let config = &self.config;
        let empty = message.is_no_response();
        if config.done_if_tool && base == BaseKind::Tool {
            return Some(StopReason::DoneIfTool);
        }
        if hit {
            let first = self.automaton.fired(&state.bits).next()?;
            return Some(StopReason::Sequence(first));
        }
        if config.recognize_string_signals && !empty && signal::says_done(message.content()) {
            return Some(StopReason::StringSignal);
        }
        let role = message.role();
        if !empty && config.done_if_response.contains(&role) {
            return Some(StopReason::DoneIfResponse(role));
        }
        if empty && config.done_if_no_response.contains(&role) {
            return Some(StopReason::DoneIfNoResponse(role));
        }
        if config.single_round {
            return Some(StopReason::SingleRound);
        }
        match config.max_turns {
            Some(max) if state.steps >= max => Some(StopReason::MaxTurns(max)),
            _ => None,
        }
    }

    /// How `message` is classified: the events it satisfies. Allocates; the
    /// hot path ([`Monitor::observe`]) does not use it.
    #[must_use]
    pub fn classify(&self, message: &Message) -> Classification {
        let base = engine::base_kind(message);
        let mut tools: Vec<String> = Vec::new();
        if base == BaseKind::Tool {
            for call in message.tool_calls() {
                if !tools.iter().any(|t| t == call.name()) {
                    tools.push(call.name().to_owned());
                }
            }
        }
        let patterns = self
            .classifier
            .matching_patterns(message.content())
            .into_iter()
            .map(|i| self.classifier.pattern_sources[i].to_string())
            .collect();
        Classification {
            base,
            responder: message.responder().map(str::to_owned),
            tools,
            patterns,
            final_answer: engine::has_final(&self.classifier.detector, message.content()),
            error: message.error().is_some(),
        }
    }

    /// How many leading elements of sequence `sequence` the run's latest steps
    /// satisfy (its length when it just fired; 0 for an index out of range).
    #[must_use]
    pub fn progress(&self, state: &RunState, sequence: usize) -> usize {
        if sequence >= self.config.done_sequences.len() {
            return 0;
        }
        self.automaton.progress(&state.bits, sequence)
    }

    /// For every sequence: how close it is, and which element failed on which step.
    #[must_use]
    pub fn explain(&self, state: &RunState) -> Vec<SequenceProgress> {
        explain::explain(&self.automaton, state)
    }

    /// Bytes the compiled automaton holds on the heap (its rows and tables).
    #[must_use]
    pub fn automaton_heap_bytes(&self) -> usize {
        self.automaton.heap_bytes()
    }
}

/// A stable hash of what a run state depends on (FNV-1a over the canonical texts and
/// options), so a checkpoint is never resumed by a different monitor.
fn fingerprint(config: &TaskConfig) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        hash ^= 0xff;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    };
    for sequence in &*config.done_sequences {
        eat(sequence.to_string().as_bytes());
    }
    let roles = |roles: &[Role]| {
        roles
            .iter()
            .map(|r| r.as_str())
            .collect::<Vec<_>>()
            .join(",")
    };
    let options = format!(
        "{}|{}|{}|{}|{:?}|{}",
        config.done_if_tool,
        roles(&config.done_if_response),
        roles(&config.done_if_no_response),
        config.single_round,
        config.max_turns,
        config.recognize_string_signals
    );
    eat(options.as_bytes());
    hash
}
