//! serde of the monitor's values (feature `serde`): a run state as a checkpoint, and a
//! classification with its labels.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::RunState;

/// The wire form of a run state: what it means, without its scratch buffers.
#[derive(Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RunStateWire {
    fingerprint: u64,
    steps: u64,
    bits: Vec<u64>,
    prev: Vec<u64>,
    stopped_at: Option<u64>,
    /// The stop conditions' state; absent in checkpoints of tasks without one.
    #[serde(default, skip_serializing_if = "is_default")]
    conditions: crate::engine::plan::PlanState,
    /// Searches that passed the backtracking limit; absent when none did.
    #[serde(default, skip_serializing_if = "is_default")]
    pattern_overruns: crate::monitor::state::Overruns,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

impl Serialize for RunState {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RunStateWire {
            fingerprint: self.fingerprint,
            steps: self.steps,
            bits: self.bits.to_vec(),
            prev: self.prev.to_vec(),
            stopped_at: self.stopped_at,
            conditions: self.tree.clone(),
            pattern_overruns: self.overruns,
        }
        .serialize(serializer)
    }
}

/// A deserialized state must go through [`crate::Monitor::resume`], which checks
/// that it belongs to the monitor.
impl<'de> Deserialize<'de> for RunState {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RunState, D::Error> {
        let wire = RunStateWire::deserialize(deserializer)?;
        Ok(RunState {
            fingerprint: wire.fingerprint,
            steps: wire.steps,
            bits: wire.bits.into(),
            prev: wire.prev.into(),
            stopped_at: wire.stopped_at,
            tree: wire.conditions,
            overruns: wire.pattern_overruns,
            cancel: std::sync::OnceLock::new(),
            scratch: crate::monitor::state::Scratch::default(),
        })
    }
}

/// A classification serializes with its fields and its labels (the events as DSL text).
impl Serialize for super::Classification {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("Classification", 7)?;
        s.serialize_field("base", &self.base)?;
        s.serialize_field("responder", &self.responder)?;
        s.serialize_field("tools", &self.tools)?;
        s.serialize_field("patterns", &self.patterns)?;
        s.serialize_field("final_answer", &self.final_answer)?;
        s.serialize_field("error", &self.error)?;
        s.serialize_field("labels", &self.labels())?;
        s.end()
    }
}
