//! `RunState`: the small per-run value a monitor advances.

use smallvec::SmallVec;

use crate::engine::{ClassifyScratch, StepScratch};

/// The state of one run of a task: counters and the automaton's bits.
///
/// Its size depends on the monitor (one word per 64 element positions, twice), never
/// on the run's length. Start one with [`crate::Monitor::start`]; each run starts
/// clean, so nothing leaks from one run into the next (Langroid's
/// `response_sequence` is kept on the task, across runs of the same task). It is `Clone`, and with the `serde` feature it serializes, so a
/// run can be checkpointed and resumed with [`crate::Monitor::resume`].
#[derive(Clone, Debug)]
pub struct RunState {
    pub(crate) fingerprint: u64,
    /// Steps observed.
    pub(crate) steps: u64,
    /// The automaton after the last step, and before it (for explanations).
    pub(crate) bits: SmallVec<[u64; 2]>,
    pub(crate) prev: SmallVec<[u64; 2]>,
    /// The step at which the task first stopped.
    pub(crate) stopped_at: Option<u64>,
    /// The stop conditions' state (statistics, latches, counters).
    pub(crate) tree: crate::engine::plan::PlanState,
    /// Searches of content patterns that passed their backtracking limit, and the
    /// first: its step and the pattern's index in the classifier.
    pub(crate) overruns: Overruns,
    /// Shared with every handle given out; made at the first request, so that a
    /// run nobody cancels allocates nothing for it; not part of a checkpoint.
    pub(crate) cancel: std::sync::OnceLock<crate::stop::CancelHandle>,
    pub(crate) scratch: Scratch,
}

/// The searches of content patterns that passed
/// [`MAX_BACKTRACK`](crate::MAX_BACKTRACK) in a run (each taken as no match).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub(crate) struct Overruns {
    /// How many messages had one.
    pub(crate) count: u64,
    /// The first: its step, and the pattern's index among the task's content
    /// patterns.
    pub(crate) first: Option<(u64, u32)>,
}

/// Buffers reused by every step, so that a step does not allocate. Not part of the
/// state's value: not serialized, not compared.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    pub(crate) classify: ClassifyScratch,
    pub(crate) step: StepScratch,
    /// The latest step's `FINAL` fact, when the monitor computes it (a sequence
    /// with `F` or a condition reading it); read back by [`crate::StepFacts`].
    pub(crate) final_answer: bool,
}

impl RunState {
    /// The number of steps observed (system messages and the task's input are not
    /// steps).
    #[must_use]
    pub const fn steps(&self) -> u64 {
        self.steps
    }

    /// The step at which the task first stopped, if it did.
    #[must_use]
    pub const fn stopped_at(&self) -> Option<u64> {
        self.stopped_at
    }

    /// A handle that cancels this run from anywhere (another thread, a signal
    /// handler): the next message observed stops it as
    /// [`crate::VerdictKind::Cancelled`]. Clones of this state made after the first
    /// call share the flag.
    ///
    /// ```
    /// use doneseq::{Message, Monitor, TaskConfig, VerdictKind};
    ///
    /// let monitor = Monitor::new(TaskConfig::default())?;
    /// let mut run = monitor.start();
    /// let handle = run.cancel_handle();
    /// std::thread::spawn(move || handle.cancel()).join().unwrap();
    /// let verdict = monitor.observe(&mut run, &Message::llm("still thinking"));
    /// assert_eq!(verdict.outcome().unwrap().kind, VerdictKind::Cancelled);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn cancel_handle(&self) -> crate::stop::CancelHandle {
        self.cancel
            .get_or_init(crate::stop::CancelHandle::default)
            .clone()
    }

    /// Whether the run's cancel handle was set.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancel
            .get()
            .is_some_and(crate::stop::CancelHandle::is_cancelled)
    }

    /// How many messages of this run a content pattern with look-around or
    /// backreferences could not be decided on, having passed
    /// [`MAX_BACKTRACK`](crate::MAX_BACKTRACK) (the pattern was taken as not matching
    /// there). [`Monitor::pattern_overrun`](crate::Monitor::pattern_overrun) tells
    /// which pattern and where first.
    #[must_use]
    pub const fn pattern_overruns(&self) -> u64 {
        self.overruns.count
    }

    /// The run's statistics as the stop conditions count them (steps, tokens,
    /// elapsed time, errors in a row, reward).
    #[must_use]
    pub fn stats(&self) -> &crate::stop::RunStats {
        &self.tree.stats
    }

    /// Bytes this state holds on the heap, beyond `size_of::<RunState>()`: the
    /// automaton's bits beyond 128 element positions, the scratch buffers that keep
    /// a step from allocating (sized by the monitor when the run starts), and the
    /// stop conditions' state. It depends on the monitor only, never on the run's
    /// length, except for the partial answer a stop tree keeps: a copy of the
    /// latest LLM response, as long as the longest one seen.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        let spilled = |v: &SmallVec<[u64; 2]>| if v.spilled() { v.capacity() * 8 } else { 0 };
        let base = spilled(&self.bits)
            + spilled(&self.prev)
            + self.scratch.classify.heap_bytes()
            + self.scratch.step.heap_bytes();
        base + self.tree.heap_bytes()
    }
}

impl PartialEq for RunState {
    fn eq(&self, other: &RunState) -> bool {
        self.fingerprint == other.fingerprint
            && self.steps == other.steps
            && self.bits == other.bits
            && self.prev == other.prev
            && self.stopped_at == other.stopped_at
            && self.tree == other.tree
            && self.overruns == other.overruns
    }
}
