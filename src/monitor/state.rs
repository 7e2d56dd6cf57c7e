//! `RunState`: the small per-run value a monitor advances.

use smallvec::SmallVec;

use crate::engine::{ClassifyScratch, StepScratch};

/// The state of one run of a task: counters and the automaton's bits.
///
/// Its size depends on the monitor (one word per 64 element positions, twice), never
/// on the run's length. Start one with [`crate::Monitor::start`]; each run starts
/// clean, so nothing leaks from one run into the next (Langroid's buffer does,
/// LANGROID.md (d)1). It is `Clone`, and with the `serde` feature it serializes, so a
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
    pub(crate) scratch: Scratch,
}

/// Buffers reused by every step, so that a step does not allocate. Not part of the
/// state's value: not serialized, not compared.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    pub(crate) classify: ClassifyScratch,
    pub(crate) step: StepScratch,
}

impl RunState {
    /// The number of steps observed (system messages are not steps).
    #[must_use]
    pub const fn steps(&self) -> u64 {
        self.steps
    }

    /// The step at which the task first stopped, if it did.
    #[must_use]
    pub const fn stopped_at(&self) -> Option<u64> {
        self.stopped_at
    }

    /// Bytes this state holds on the heap, beyond `size_of::<RunState>()`: the
    /// automaton's bits beyond 128 element positions, and the scratch buffers that
    /// keep a step from allocating (sized by the monitor when the run starts). It
    /// depends on the monitor only, never on the run's length.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        let spilled = |v: &SmallVec<[u64; 2]>| if v.spilled() { v.capacity() * 8 } else { 0 };
        spilled(&self.bits)
            + spilled(&self.prev)
            + self.scratch.classify.heap_bytes()
            + self.scratch.step.heap_bytes()
    }
}

impl PartialEq for RunState {
    fn eq(&self, other: &RunState) -> bool {
        self.fingerprint == other.fingerprint
            && self.steps == other.steps
            && self.bits == other.bits
            && self.prev == other.prev
            && self.stopped_at == other.stopped_at
    }
}
