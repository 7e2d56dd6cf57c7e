//! Loop detection: is the tail of the run a cycle of some period, repeated?
//!
//! Each step is reduced to a 64-bit signature. For every period `p` up to the
//! maximum, a counter holds how many steps in a row (ending now) equal the step `p`
//! before them; a cycle of period `p` repeated `r` times back to back is exactly
//! `p * (r - 1)` such steps in a row. So a step costs one comparison per period and
//! the state is two arrays of `period` numbers, whatever the run's length.

use std::hash::Hasher;

use super::condition::{LoopDetection, LoopOver};
use crate::{Message, Role};

/// The per-run state of one loop condition.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub(crate) struct LoopState {
    /// The last `period` signatures, oldest first once full (a ring at `next`).
    pub(crate) ring: Vec<u64>,
    pub(crate) next: usize,
    /// Signatures seen (saturating).
    pub(crate) seen: u64,
    /// For period `p` (index `p - 1`): steps in a row equal to the one `p` before.
    pub(crate) runs: Vec<u32>,
    /// The latest LLM message called only exempt tools: their results are left out.
    pub(crate) exempt_results: bool,
}

impl LoopState {
    pub(crate) fn new(spec: &LoopDetection) -> LoopState {
        let period = spec.period as usize;
        LoopState {
            ring: vec![0; period],
            next: 0,
            seen: 0,
            runs: vec![0; period],
            exempt_results: false,
        }
    }

    /// Whether the state fits the condition (a checkpoint from elsewhere may not).
    pub(crate) fn fits(&self, spec: &LoopDetection) -> bool {
        let period = spec.period as usize;
        self.ring.len() == period && self.runs.len() == period && self.next < period.max(1)
    }

    /// Takes one step; the period of the cycle found, if any.
    pub(crate) fn step(&mut self, spec: &LoopDetection, message: &Message) -> Option<u32> {
        let signature = self.signature(spec, message)?;
        let period = self.ring.len();
        let need = |p: usize| (p as u64) * u64::from(spec.repeats.saturating_sub(1));
        let mut found = None;
        for p in 1..=period {
            // The signature `p` steps back sits `p` slots before `next` in the ring.
            let back = (self.next + period - p) % period;
            let equal = self.seen >= p as u64 && self.ring[back] == signature;
            let run = &mut self.runs[p - 1];
            *run = if equal { run.saturating_add(1) } else { 0 };
            if found.is_none() && u64::from(*run) >= need(p) {
                found = u32::try_from(p).ok();
            }
        }
        self.ring[self.next] = signature;
        self.next = (self.next + 1) % period;
        self.seen = self.seen.saturating_add(1);
        found
    }

    /// The closest any period has come: `(period, repeats seen)`, for explanations.
    pub(crate) fn closest(&self, spec: &LoopDetection) -> (u32, u32) {
        let mut best = (1, if self.seen > 0 { 1 } else { 0 });
        for (i, &run) in self.runs.iter().enumerate() {
            let p = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let repeats = (run / p).saturating_add(1);
            if repeats > best.1 {
                best = (p, repeats.min(spec.repeats));
            }
        }
        best
    }

    /// The step's signature, or `None` when the step is left out.
    fn signature(&mut self, spec: &LoopDetection, message: &Message) -> Option<u64> {
        let calls = message.tool_calls();
        let exempt = |name: &str| spec.exempt.iter().any(|e| e == name);
        match message.role() {
            Role::Llm => {
                self.exempt_results = !calls.is_empty() && calls.iter().all(|c| exempt(c.name()));
                if self.exempt_results {
                    return None;
                }
            }
            Role::Agent if self.exempt_results => return None,
            _ => {}
        }
        let mut h = Fnv::default();
        h.write_u8(message.role() as u8);
        let text = message.content().trim();
        let with_text = spec.over != LoopOver::Calls && !text.is_empty();
        let with_calls = spec.over != LoopOver::Texts && !calls.is_empty();
        if !with_text && !with_calls {
            return None;
        }
        if with_text {
            // Whitespace runs count as one space, so reflowed text is the same text.
            for word in text.split_whitespace() {
                h.write(word.as_bytes());
                h.write_u8(b' ');
            }
        }
        if with_calls {
            for call in calls {
                h.write_u8(0xff);
                h.write(call.name().as_bytes());
                h.write_u8(0);
                canonical_args(&call.arguments(), &mut h);
            }
        }
        if message.error().is_some() {
            h.write_u8(0xfe);
        }
        Some(h.finish())
    }
}

/// Hashes arguments as canonical JSON (keys sorted, no spaces), so `{"a":1, "b":2}`
/// and `{"b": 2, "a": 1}` are one call; text that is not JSON is hashed as written.
fn canonical_args(arguments: &str, h: &mut Fnv) {
    match serde_json::from_str::<serde_json::Value>(arguments) {
        // serde_json's map is a BTreeMap (no `preserve_order`): keys come out sorted.
        Ok(value) => h.write(value.to_string().as_bytes()),
        Err(_) => h.write(arguments.trim().as_bytes()),
    }
}

/// FNV-1a: stable across runs and platforms, so signatures in a checkpoint stay valid.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}
