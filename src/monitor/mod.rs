//! The task monitor: a task's done sequences and Langroid's options, compiled once,
//! observing the messages of any number of runs.

mod evidence;
mod explain;
mod replay;
mod report;
mod signal;
pub(crate) mod state;
mod step_facts;
mod verdict;
#[cfg(feature = "serde")]
mod wire;

use crate::stop::VerdictKind;
pub use evidence::{Evidence, TokenBudgetEvidence};
pub use explain::{Failure, SequenceProgress};
pub use replay::{Replay, ReplayStep};
pub use report::ConditionReport;
pub use state::RunState;
pub use step_facts::StepFacts;
pub use verdict::{
    Answer, AnswerSource, FiredCondition, NodeId, Outcome, SequenceMatch, StopReason, Verdict,
};

use std::sync::Arc;

use smallvec::smallvec;

use crate::engine::eval::Ctx;
use crate::engine::plan::Plan;
use crate::engine::{self, Automaton, Classifier, limits::CompileError};
use crate::stop::TaskConfig;
use crate::stop::{Clock, Condition, Registry, SystemClock};
use crate::{BaseKind, DoneSequence, Message, Role};
use report::{Seqs, Stop};

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
/// // Steps count from the first response: the question is the task's input.
/// assert_eq!(outcome.fired[0].matched, 0..=1);
/// assert_eq!(outcome.answer.as_ref().unwrap().text, "42");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Monitor {
    config: TaskConfig,
    classifier: Classifier,
    /// The task's own done sequences come first in the automaton; the stop tree's
    /// `seq(...)` conditions after them.
    automaton: Automaton,
    /// The whole stop model: the options lowered into conditions, and the stop tree.
    plan: Arc<Plan>,
    clock: Arc<dyn Clock>,
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
///
/// With the `serde` feature it serializes with its fields and its
/// [`labels`](Classification::labels) (`base` is the letter: `T`, `L`, `A`, `U`, `N`).
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
        let mut labels = vec![self.base.letter().to_owned()];
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
    /// Compiles a task configuration: its options are lowered into conditions
    /// ([`TaskConfig::lowered`]) and evaluated with its stop tree as one plan.
    ///
    /// # Errors
    ///
    /// A [`CompileError`] when a resource limit is exceeded: more than
    /// [`crate::MAX_SEQUENCES`] sequences, [`crate::MAX_POSITIONS`] elements in all,
    /// [`crate::MAX_TASK_PATTERNS`] distinct regexes, or a regex set bigger than
    /// [`crate::MAX_REGEX_SET_SIZE`]; [`CompileError::InvalidCondition`] for a stop
    /// condition out of bounds, and [`CompileError::Custom`] for a custom condition
    /// that is not registered or refuses its configuration. Custom conditions are
    /// looked up in [`Registry::default`]; use [`Monitor::with_registry`] for others.
    pub fn new(config: TaskConfig) -> Result<Monitor, CompileError> {
        Monitor::with_registry(config, &Registry::default())
    }

    /// Compiles a task configuration whose stop condition uses custom conditions
    /// from `registry`.
    ///
    /// # Errors
    ///
    /// As [`Monitor::new`].
    pub fn with_registry(config: TaskConfig, registry: &Registry) -> Result<Monitor, CompileError> {
        let (plan, sequences) = Plan::compile(&config, registry)?;
        let (classifier, automaton) = engine::compile(&sequences, &plan.texts)?;
        let fingerprint = fingerprint(&config);
        Ok(Monitor {
            config,
            classifier,
            automaton,
            plan: Arc::new(plan),
            clock: Arc::new(SystemClock),
            fingerprint,
        })
    }

    /// The same monitor reading time from `clock` (for `timeout(...)`), e.g. a
    /// [`crate::stop::ManualClock`] in tests. Runs started before keep working.
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Monitor {
        self.clock = clock;
        self
    }

    /// The task as one condition tree, as this monitor evaluates it
    /// ([`TaskConfig::lowered`]); [`NodeId`]s number its nodes in pre-order.
    #[must_use]
    pub fn lowered(&self) -> &Condition {
        &self.plan.lowered
    }

    /// The condition at `node` of the lowered tree, if there is one.
    ///
    /// ```
    /// use doneseq::{Message, Monitor, TaskConfig};
    ///
    /// let mut config = TaskConfig::default();
    /// config.max_turns = Some(1);
    /// let monitor = Monitor::new(config)?;
    /// let mut run = monitor.start();
    /// let outcome = monitor.observe(&mut run, &Message::llm("hi")).outcome().cloned().unwrap();
    /// let fired = &outcome.conditions[0];
    /// assert_eq!(monitor.condition(fired.node).unwrap().to_string(), "max_turns(1)");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn condition(&self, node: NodeId) -> Option<&Condition> {
        let mut stack = vec![&self.plan.lowered];
        let mut index = 0;
        while let Some(c) = stack.pop() {
            if index == node.index() {
                return Some(c);
            }
            index += 1;
            stack.extend(c.children().iter().rev());
        }
        None
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
            tree: self
                .plan
                .start(self.plan.needs_clock.then(|| self.clock.now())),
            overruns: state::Overruns::default(),
            cancel: std::sync::OnceLock::new(),
            scratch: self.scratch(),
        }
    }

    /// Scratch buffers sized for this monitor, so that no step allocates.
    fn scratch(&self) -> state::Scratch {
        state::Scratch {
            classify: self.classifier.scratch(),
            step: engine::StepScratch::new(self.automaton.words),
            final_answer: false,
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
            (0..self.automaton.spans.len()).any(|s| self.automaton.progress(bits, s) as u64 > steps)
        };
        if ahead(&state.bits, state.steps) || ahead(&state.prev, state.steps.saturating_sub(1)) {
            return Err(StateError::Corrupt(
                "more elements satisfied than steps taken",
            ));
        }
        if !self.plan.fits(&state.tree) {
            return Err(StateError::Corrupt(
                "the stop conditions' state does not fit this monitor",
            ));
        }
        let overruns = state.overruns;
        let first_fits = overruns.first.is_none_or(|(at, p)| {
            at < state.steps && (p as usize) < self.classifier.content_patterns
        });
        if !first_fits || (overruns.count == 0) != overruns.first.is_none() {
            return Err(StateError::Corrupt(
                "the pattern overruns do not fit this run",
            ));
        }
        // Time spent suspended is not counted: the clock restarts here.
        state.tree.clock_mark = self.plan.needs_clock.then(|| self.clock.now());
        state.scratch = self.scratch();
        Ok(state)
    }

    /// Observes the next message of a run and says whether the task ends here.
    ///
    /// A system message and the task's input ([`TaskConfig::input`]: by default the
    /// user messages before the first response) are not steps: they change nothing
    /// and give [`Verdict::Continue`] ([`Monitor::is_step`] says which a message is).
    /// Every other message is one step, classified once. The
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
        if !self.is_step(state, message) {
            return Verdict::Continue;
        }
        let at = state.steps;
        // Saturating: only a forged checkpoint can be 2^64 steps old.
        state.steps = state.steps.saturating_add(1);
        // The bits before the step become `prev` by a swap, not a copy: the step
        // writes every word of `bits` from them.
        std::mem::swap(&mut state.bits, &mut state.prev);
        let plan = &*self.plan;
        // The message's facts, each computed once, for the automaton and every
        // condition alike.
        let content = message.content();
        let final_answer =
            self.computes_final() && engine::has_final(&self.classifier.detector, content);
        let says_done = plan.needs_done && crate::answer::done::says_done(content);
        let cancelled = state.is_cancelled();
        let partial = plan.needs_partial || state.cancel.get().is_some();
        let now = plan.needs_clock.then(|| self.clock.now());
        let scratch = &mut state.scratch;
        scratch.final_answer = final_answer;
        let classified = self
            .classifier
            .classify(message, final_answer, &mut scratch.classify);
        let base = classified.base;
        let matched = classified.matched;
        if let Some(pattern) = classified.overrun {
            let overruns = &mut state.overruns;
            overruns.count = overruns.count.saturating_add(1);
            overruns.first.get_or_insert((at, pattern));
        }
        let hit = self
            .automaton
            .step(&mut state.bits, &state.prev, &classified, &mut scratch.step);
        let task_hit = hit
            && self
                .automaton
                .fired(&state.bits)
                .next()
                .is_some_and(|s| s < plan.task_sequences);
        plan.count(&mut state.tree, message, now, partial);
        let (automaton, bits) = (&self.automaton, &state.bits);
        let seq_fired = |s: usize| automaton.has_fired(bits, s);
        let ctx = Ctx {
            message,
            at,
            base,
            final_answer,
            says_done,
            task_hit,
            cancelled,
            seq_fired: &seq_fired,
            matched,
            text_base: self.classifier.content_patterns,
        };
        let root_fired = plan.eval(&mut state.tree, &ctx);
        if root_fired == 0 {
            return Verdict::Continue;
        }
        state.stopped_at.get_or_insert(at);
        Verdict::Stop(self.outcome(state, message, at, root_fired))
    }

    /// Whether `message`, observed next in the run `state`, would be a step: not a
    /// system message and not the task's input ([`TaskConfig::input`]). A tool that
    /// shows a run numbers its steps with this.
    ///
    /// ```
    /// use doneseq::{Message, Monitor, TaskConfig};
    ///
    /// let monitor = Monitor::new(TaskConfig::default())?;
    /// let mut run = monitor.start();
    /// let question = Message::user("What is 6 x 7?");
    /// assert!(!monitor.is_step(&run, &question)); // the task's input
    /// monitor.observe(&mut run, &question);
    /// let answer = Message::llm("42");
    /// assert!(monitor.is_step(&run, &answer));
    /// monitor.observe(&mut run, &answer);
    /// // After the first step, a user message is the user's step.
    /// assert!(monitor.is_step(&run, &Message::user("Thanks")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn is_step(&self, state: &RunState, message: &Message) -> bool {
        message.role() != Role::System && !self.is_input(state, message)
    }

    /// Whether `message`, observed next in the run `state`, would be the task's input
    /// ([`TaskConfig::input`]); a system message never is (it is set-up, neither input
    /// nor step).
    ///
    /// ```
    /// use doneseq::{Message, Monitor, TaskConfig};
    ///
    /// let monitor = Monitor::new(TaskConfig::default())?;
    /// let run = monitor.start();
    /// assert!(monitor.is_input(&run, &Message::user("What is 6 x 7?")));
    /// assert!(!monitor.is_input(&run, &Message::system("Be brief.")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn is_input(&self, state: &RunState, message: &Message) -> bool {
        message.role() != Role::System && self.config.input.is_input(message, state.steps)
    }

    /// The first message of the run `state` on which a content pattern could not be
    /// decided, having passed [`MAX_BACKTRACK`](crate::MAX_BACKTRACK) (only a pattern
    /// with look-around or backreferences can): its step and the pattern as written.
    /// The pattern was taken as not matching there, and on every such message
    /// ([`RunState::pattern_overruns`] counts them): a search that cannot finish must
    /// neither stop the task nor go unnoticed.
    ///
    /// ```
    /// use doneseq::{Message, Monitor, TaskConfig};
    ///
    /// let monitor = Monitor::new(TaskConfig::from_dsl(&[r"C[^(a|a)*\1$]"])?)?;
    /// let mut run = monitor.start();
    /// monitor.observe(&mut run, &Message::llm("ok"));
    /// monitor.observe(&mut run, &Message::llm(format!("{}b", "a".repeat(40))));
    /// assert_eq!(run.pattern_overruns(), 1);
    /// assert_eq!(monitor.pattern_overrun(&run), Some((1, r"^(a|a)*\1$")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn pattern_overrun(&self, state: &RunState) -> Option<(u64, &str)> {
        let (at, pattern) = state.overruns.first?;
        let source = self.classifier.pattern_sources.get(pattern as usize)?;
        Some((at, source))
    }

    /// The outcome of a stop: every condition that fired, the kind of highest
    /// precedence among them, the leading reason (the first condition of that kind,
    /// in the lowered tree's order), and the answer.
    fn outcome(&self, state: &RunState, message: &Message, at: u64, root_fired: u32) -> Outcome {
        let stop = Stop {
            plan: &self.plan,
            state: &state.tree,
            seqs: Seqs {
                automaton: &self.automaton,
                bits: &state.bits,
            },
            message,
            at,
        };
        let conditions = stop.fired(root_fired);
        let kind = conditions
            .iter()
            .map(|c| c.kind)
            .max_by_key(|k| k.precedence())
            .unwrap_or(VerdictKind::Done);
        let leading = conditions.iter().find(|c| c.kind == kind);
        let reason = leading.map_or(StopReason::Cancelled, |c| {
            c.rule.clone().unwrap_or(StopReason::Condition(c.node))
        });
        let answer = if kind == VerdictKind::Done {
            let signal = leading.is_some_and(|c| c.id == crate::stop::ConditionId::DoneSignal);
            signal::answer(message, signal)
        } else {
            partial(state)
        };
        let fired = conditions
            .iter()
            .filter_map(|c| match (&c.rule, &c.evidence) {
                (Some(StopReason::Sequence(s)), Evidence::Sequence { matched }) => {
                    Some(SequenceMatch {
                        sequence: *s,
                        matched: matched.clone(),
                    })
                }
                _ => None,
            })
            .collect();
        Outcome {
            kind,
            reason,
            at,
            fired,
            answer,
            conditions,
        }
    }

    /// How `message` is classified: the events it satisfies. Allocates; the
    /// hot path ([`Monitor::observe`]) does not use it.
    #[must_use]
    pub fn classify(&self, message: &Message) -> Classification {
        let base = engine::base_kind(message);
        let tools = if base == BaseKind::Tool {
            step_facts::distinct(message.tool_calls().iter().map(crate::ToolCall::name))
        } else {
            Vec::new()
        };
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
        if sequence >= self.plan.task_sequences {
            return 0;
        }
        self.automaton.progress(&state.bits, sequence)
    }

    /// Every done sequence with some progress in the run `state`, as `(sequence,
    /// progress)` in the sequences' order: [`Monitor::progress`] of each sequence
    /// where it is not 0, found in one pass over the automaton's bits (so the work
    /// grows with the sequences that progress, not with all of them).
    ///
    /// ```
    /// use doneseq::{Message, Monitor, TaskConfig};
    ///
    /// let monitor = Monitor::new(TaskConfig::from_dsl(["T, A", "L, L, L", "U, L"])?)?;
    /// let mut run = monitor.start();
    /// monitor.observe(&mut run, &Message::user("go"));
    /// monitor.observe(&mut run, &Message::llm("thinking"));
    /// assert_eq!(monitor.progressing(&run).collect::<Vec<_>>(), [(1, 1)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn progressing<'a>(
        &'a self,
        state: &'a RunState,
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        self.progressing_in(self.progress_bits(state))
    }

    /// The run's progress as its automaton holds it (a bit per element of each
    /// sequence: the steps ending now satisfy the sequence up to that element), a few
    /// words, the same number for every run of this monitor. A copy is a snapshot
    /// that [`Monitor::progressing_in`] reads later, e.g. on another thread: a tool
    /// that writes a row per step keeps these words instead of a list per sequence.
    ///
    /// ```
    /// use doneseq::{Message, Monitor, TaskConfig};
    ///
    /// let monitor = Monitor::new(TaskConfig::from_dsl(["T, A", "L, L, L"])?)?;
    /// let mut run = monitor.start();
    /// monitor.observe(&mut run, &Message::llm("thinking"));
    /// let snapshot = monitor.progress_bits(&run).to_vec();
    /// monitor.observe(&mut run, &Message::llm("still thinking"));
    /// assert_eq!(monitor.progressing_in(&snapshot).collect::<Vec<_>>(), [(1, 1)]);
    /// assert_eq!(monitor.progressing(&run).collect::<Vec<_>>(), [(1, 2)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn progress_bits<'a>(&self, state: &'a RunState) -> &'a [u64] {
        &state.bits
    }

    /// [`Monitor::progressing`] of a run whose [`Monitor::progress_bits`] were
    /// `bits`. Words that did not come from this monitor give some list, never a
    /// panic.
    pub fn progressing_in<'a>(
        &'a self,
        bits: &'a [u64],
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        self.automaton.progressing(bits, self.plan.task_sequences)
    }

    /// What [`Monitor::observe`] found in the run's latest step, `message`: its
    /// classification read back from the run, without classifying the message again
    /// (a tool that shows each step's events calls this right after observing it).
    ///
    /// `message` must be the message the run just observed, and a step
    /// ([`Monitor::is_step`] before observing it): the base kind and the matching
    /// patterns are the latest step's, the tool names, responder and error are read
    /// from `message`.
    ///
    /// ```
    /// use doneseq::{Message, Monitor, TaskConfig, ToolCall};
    ///
    /// let monitor = Monitor::new(TaskConfig::from_dsl(["T[add], A", "C[sum]"])?)?;
    /// let mut run = monitor.start();
    /// let message = Message::llm("sum it").with_tool_call(ToolCall::new("add", "{}"));
    /// monitor.observe(&mut run, &message);
    /// let facts = monitor.step_facts(&run, &message);
    /// assert_eq!(facts.patterns().collect::<Vec<_>>(), [0]);
    /// assert_eq!(facts.classification(), monitor.classify(&message));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn step_facts<'a>(
        &'a self,
        state: &'a RunState,
        message: &'a Message<'a>,
    ) -> StepFacts<'a> {
        let classifier = &self.classifier;
        let final_answer = if self.computes_final() {
            state.scratch.final_answer
        } else {
            engine::has_final(&classifier.detector, message.content())
        };
        StepFacts::new(self, state.scratch.classify.atoms(), message, final_answer)
    }

    /// The content regexes of the task's done sequences, as written, in the order
    /// [`StepFacts::patterns`] numbers them (each distinct regex once).
    ///
    /// ```
    /// use doneseq::{Monitor, TaskConfig};
    ///
    /// let monitor = Monitor::new(TaskConfig::from_dsl(["C[quit], A", "L, C[bye|quit]", "C[quit]"])?)?;
    /// let patterns: Vec<&str> = monitor.content_patterns().iter().map(|p| &**p).collect();
    /// assert_eq!(patterns, ["quit", "bye|quit"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn content_patterns(&self) -> &[Box<str>] {
        &self.classifier.pattern_sources[..self.classifier.content_patterns]
    }

    /// Whether [`Monitor::observe`] computes each step's `FINAL` fact (a sequence or
    /// a condition reads it).
    fn computes_final(&self) -> bool {
        self.plan.needs_final || self.classifier.final_atom.is_some()
    }

    /// For every sequence: how close it is, and which element failed on which step.
    #[must_use]
    pub fn explain(&self, state: &RunState) -> Vec<SequenceProgress> {
        explain::explain(&self.automaton, self.plan.task_sequences, state)
    }

    /// For every condition of the task's stop tree: whether it fires at the latest
    /// step, since when, and how close it is (`turns 7/10`, `tokens 81% ...`,
    /// `sequence 1 of 2`). `None` when the task has no stop condition.
    ///
    /// ```
    /// use doneseq::stop::Condition;
    /// use doneseq::{Message, Monitor, TaskConfig};
    ///
    /// let mut config = TaskConfig::default();
    /// config.stop = Some(Condition::max_turns(10) | Condition::tokens(1000));
    /// let monitor = Monitor::new(config)?;
    /// let mut run = monitor.start();
    /// for _ in 0..7 {
    ///     monitor.observe(&mut run, &Message::llm("thinking"));
    /// }
    /// let report = monitor.explain_stop(&run).unwrap();
    /// assert_eq!(report.children[0].progress, "turns 7/10");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn explain_stop(&self, state: &RunState) -> Option<ConditionReport> {
        let (root, _) = self.plan.stop?;
        let seqs = Seqs {
            automaton: &self.automaton,
            bits: &state.bits,
        };
        Some(report::report(&self.plan, root as usize, &state.tree, seqs))
    }

    /// What fired in `outcome`, in one line: `sequence N "<its DSL text>"` for a done
    /// sequence, else the leading condition's text (`max_turns(2)`, `final`, ...).
    ///
    /// ```
    /// use doneseq::{Message, Monitor, TaskConfig, ToolCall};
    ///
    /// let monitor = Monitor::new(TaskConfig::from_dsl(["T[add], A"])?)?;
    /// let mut run = monitor.start();
    /// monitor.observe(&mut run, &Message::llm("").with_tool_call(ToolCall::new("add", "{}")));
    /// let verdict = monitor.observe(&mut run, &Message::agent("5"));
    /// assert_eq!(monitor.fired(verdict.outcome().unwrap()), "sequence 0 \"T[add], A\"");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn fired(&self, outcome: &Outcome) -> String {
        match outcome.reason {
            StopReason::Sequence(i) => match self.sequences().get(i) {
                Some(sequence) => format!("sequence {i} \"{sequence}\""),
                None => format!("sequence {i}"),
            },
            _ => outcome
                .leading()
                .map_or_else(|| "?".to_owned(), |c| c.text.to_string()),
        }
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
    let mut fnv = Fnv(&mut hash);
    // The state's layout: 2 since the options are lowered into the plan (the stop
    // tree's tool states are for `tool(x, executed)` only).
    fnv.text(b"plan-2");
    for sequence in &*config.done_sequences {
        fnv.printed(sequence);
    }
    if let Some(stop) = &config.stop {
        fnv.text(b"stop");
        fnv.printed(stop);
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
    fnv.text(options.as_bytes());
    // Absent from the hash when they are the defaults, so that checkpoints of
    // configurations without them stay valid.
    if config.llm_delegate {
        fnv.text(b"llm_delegate");
    }
    if config.input != crate::stop::TaskInput::default() {
        fnv.text(b"input");
        fnv.text(config.input.name().as_bytes());
    }
    // Class names change which tools the sequences name. (Absent from the hash when
    // empty, so that checkpoints of configurations without them stay valid.)
    for (class, request) in &config.tool_classes {
        fnv.text(b"class");
        fnv.text(class.as_bytes());
        fnv.text(request.as_bytes());
    }
    hash
}

/// FNV-1a over texts ([`fingerprint`]'s hash): each text's bytes, then an end that
/// keeps two texts from reading as one.
struct Fnv<'a>(&'a mut u64);

impl Fnv<'_> {
    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            *self.0 ^= u64::from(b);
            *self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// The end of a text.
    fn end(&mut self) {
        *self.0 ^= 0xff;
        *self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
    }

    /// A text, and its end.
    fn text(&mut self, bytes: &[u8]) {
        self.bytes(bytes);
        self.end();
    }

    /// A value's canonical text, hashed as it is printed: the same bytes as the
    /// printed string's, so the same hash, without the string (one a sequence, built
    /// and freed, was about 6 % of compiling 1,000 of them).
    fn printed(&mut self, value: &dyn std::fmt::Display) {
        use std::fmt::Write as _;
        // Writing to the hash cannot fail.
        let _ = write!(self, "{value}");
        self.end();
    }
}

impl std::fmt::Write for Fnv<'_> {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.bytes(text.as_bytes());
        Ok(())
    }
}

/// The partial answer of a run that did not finish: its latest LLM response.
fn partial(state: &RunState) -> Option<Answer> {
    (!state.tree.last_text.is_empty()).then(|| Answer {
        text: state.tree.last_text.clone(),
        source: AnswerSource::Partial,
    })
}
