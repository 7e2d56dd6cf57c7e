//! The compiled done sequences: one Shift-And automaton over all of them.
//!
//! Every element of every sequence is one bit position, sequences laid end to end in
//! list order. After a message, bit `p` is set when the element at `p` and all the
//! elements before it in its sequence match the messages ending with this one, so
//! `state = ((state << 1) | starts) & !fail(message)`, and a sequence fires when its
//! last bit is set. The shift carries the last bit of one sequence into the first of
//! the next, which is harmless: that bit is in `starts` anyway.
//!
//! `fail(message)` is the set of positions whose element the message does not satisfy.
//! It is assembled from precomputed rows (see [`super::compile`]):
//! - `fail_base[kind]`: positions that need another base kind, or negate this one;
//! - `req_r` / `req_x`: positions that need a responder / one other atom (tool name,
//!   regex, `F`, `E`, or a compound); they fail unless the message has it;
//! - `neg[atom]`: positions that negate an atom the message has.
//!
//! The work per message is a few passes over the words plus the sparse rows of the
//! atoms the message actually has; it does not grow with the number of sequences
//! beyond one word per 64 positions.

use super::bits::{self, Sparse};
use super::classify::Classified;

/// The Shift-And program of a task's sequences.
#[derive(Clone, Debug)]
pub(crate) struct Automaton {
    pub(crate) words: usize,
    pub(crate) starts: Box<[u64]>,
    pub(crate) ends: Box<[u64]>,
    /// Five dense rows, indexed by `BaseKind as usize` order of `base_index`.
    pub(crate) fail_base: Box<[u64]>,
    /// Positions that require some responder.
    pub(crate) req_r_all: Box<[u64]>,
    /// Per responder id: positions that require exactly it.
    pub(crate) req_r: Box<[Sparse]>,
    /// Per responder id: positions whose element negates it (`!_@r`).
    pub(crate) neg_r: Box<[Sparse]>,
    /// Positions that require one non-exclusive atom.
    pub(crate) req_x_all: Box<[u64]>,
    /// Per atom: positions that require it.
    pub(crate) req_x: Box<[Sparse]>,
    /// Per atom: positions whose element negates it.
    pub(crate) neg_x: Box<[Sparse]>,
    /// For each sequence: its first position and its length.
    pub(crate) spans: Box<[(u32, u32)]>,
    /// For each position: its sequence.
    pub(crate) seq_of: Box<[u32]>,
}

/// Scratch rows for one step, kept in the run state so that a step never allocates.
#[derive(Clone, Debug, Default)]
pub(crate) struct StepScratch {
    acc_r: Vec<u64>,
    acc_x: Vec<u64>,
    neg: Vec<u64>,
}

impl Automaton {
    /// Advances `bits` (this automaton's `words` words) over one classified message.
    /// Returns whether any sequence's last element is now set.
    #[inline]
    pub(crate) fn step(
        &self,
        bits: &mut [u64],
        message: &Classified<'_>,
        scratch: &mut StepScratch,
    ) -> bool {
        let w = self.words;
        for row in [&mut scratch.acc_r, &mut scratch.acc_x, &mut scratch.neg] {
            row.clear();
            row.resize(w, 0);
        }
        if let Some(r) = message.responder {
            self.req_r[r as usize].or_into(&mut scratch.acc_r);
            self.neg_r[r as usize].or_into(&mut scratch.neg);
        }
        for &atom in message.atoms {
            self.req_x[atom as usize].or_into(&mut scratch.acc_x);
            self.neg_x[atom as usize].or_into(&mut scratch.neg);
        }
        let base = &self.fail_base[base_index(message.base) * w..][..w];
        let mut carry = 0u64;
        let mut hit = 0u64;
        for i in 0..w {
            let fail = base[i]
                | (self.req_r_all[i] & !scratch.acc_r[i])
                | (self.req_x_all[i] & !scratch.acc_x[i])
                | scratch.neg[i];
            let old = bits[i];
            let next = ((old << 1) | carry | self.starts[i]) & !fail;
            carry = old >> 63;
            bits[i] = next;
            hit |= next & self.ends[i];
        }
        hit != 0
    }

    /// The sequences whose last element is set in `bits`, in list order: the set
    /// bits of `bits & ends`, so the cost follows the matches, not the sequences.
    pub(crate) fn fired<'a>(&'a self, bits: &'a [u64]) -> impl Iterator<Item = usize> + 'a {
        bits.iter()
            .zip(self.ends.iter())
            .enumerate()
            .flat_map(move |(i, (&b, &e))| {
                let mut hits = b & e;
                std::iter::from_fn(move || {
                    (hits != 0).then(|| {
                        let p = i * 64 + hits.trailing_zeros() as usize;
                        hits &= hits - 1;
                        self.seq_of[p] as usize
                    })
                })
            })
    }

    /// The element of sequence `s` that ended the furthest attempt at the latest
    /// step: an attempt reached element `e` if `e` is the first (always tried) or
    /// `e - 1` held one step before (`prev`), and ended if `e` does not hold now.
    pub(crate) fn failed_element(&self, prev: &[u64], bits: &[u64], s: usize) -> Option<usize> {
        let (start, len) = self.spans[s];
        let (start, len) = (start as usize, len as usize);
        (0..len).rev().find(|&e| {
            let p = start + e;
            (e == 0 || bits::get(prev, p - 1)) && !bits::get(bits, p)
        })
    }

    /// Whether sequence `s` fired at the latest step (its last element is set).
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(crate) fn has_fired(&self, bits: &[u64], s: usize) -> bool {
        let (start, len) = self.spans[s];
        bits::get(bits, start as usize + len as usize - 1)
    }

    /// How many leading elements of sequence `s` the messages ending now satisfy.
    pub(crate) fn progress(&self, bits: &[u64], s: usize) -> usize {
        let (start, len) = self.spans[s];
        let (start, len) = (start as usize, len as usize);
        bits::highest_in(bits, start, start + len).map_or(0, |p| p - start + 1)
    }

    /// The number of positions.
    pub(crate) fn positions(&self) -> usize {
        self.seq_of.len()
    }

    /// Heap bytes held by the program.
    pub(crate) fn heap_bytes(&self) -> usize {
        let dense = self.starts.len()
            + self.ends.len()
            + self.fail_base.len()
            + self.req_r_all.len()
            + self.req_x_all.len();
        let sparse: usize = self
            .req_r
            .iter()
            .chain(self.neg_r.iter())
            .chain(self.req_x.iter())
            .chain(self.neg_x.iter())
            .map(|s| s.heap_bytes() + std::mem::size_of::<Sparse>())
            .sum();
        dense * 8 + sparse + self.spans.len() * 8 + self.seq_of.len() * 4
    }
}

/// The row of a base kind in `fail_base`.
pub(crate) const fn base_index(kind: crate::BaseKind) -> usize {
    match kind {
        crate::BaseKind::Tool => 0,
        crate::BaseKind::Llm => 1,
        crate::BaseKind::Agent => 2,
        crate::BaseKind::User => 3,
        crate::BaseKind::NoResponse => 4,
    }
}

/// Every base kind, in `base_index` order.
pub(crate) const BASES: [crate::BaseKind; 5] = [
    crate::BaseKind::Tool,
    crate::BaseKind::Llm,
    crate::BaseKind::Agent,
    crate::BaseKind::User,
    crate::BaseKind::NoResponse,
];
