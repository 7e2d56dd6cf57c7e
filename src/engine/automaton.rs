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
//! The work per message is one pass over the words plus the sparse rows of the
//! atoms the message actually has; it does not grow with the number of sequences
//! beyond one word per 64 positions. The dense pass assumes that the message has no
//! responder and no atom, so that it reads one precomputed row per base kind
//! (`pass = !(fail_base[kind] | req_r_all | req_x_all)`) beside `starts` and `ends`,
//! with no dependency from one word to the next (the carry comes from the old bits,
//! kept apart), which the compiler vectorizes. The words that the responder's and
//! the atoms' sparse rows touch are then computed again with the full formula; a
//! message has few atoms, so this fix-up costs little (`benches/observe.rs`).

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
    /// Per base kind (`base_index`): the positions that a message of that kind with
    /// no responder and no atom satisfies; the dense pass's row.
    pub(crate) pass: Box<[u64]>,
    /// For each sequence: its first position and its length.
    pub(crate) spans: Box<[(u32, u32)]>,
    /// For each position: its sequence.
    pub(crate) seq_of: Box<[u32]>,
}

/// Scratch for the fix-up of one step, kept in the run state so that a step never
/// allocates: per word, what the message's responder and atoms add (`[acc_r,
/// acc_x, neg]`, all zero between steps), and the words touched.
#[derive(Clone, Debug, Default)]
pub(crate) struct StepScratch {
    acc: Vec<[u64; 3]>,
    touched: Vec<u32>,
}

impl StepScratch {
    /// A scratch that never needs to grow for an automaton of `words` words.
    pub(crate) fn new(words: usize) -> StepScratch {
        StepScratch {
            acc: vec![[0; 3]; words],
            touched: Vec::with_capacity(words),
        }
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.acc.capacity() * 24 + self.touched.capacity() * 4
    }

    /// ORs `row` into column `col` of the accumulators, noting each word touched
    /// for the first time (a sparse row's words are never zero).
    fn add(&mut self, row: &Sparse, col: usize) {
        for (w, bits) in row.words() {
            let acc = &mut self.acc[w];
            if *acc == [0; 3] {
                #[allow(clippy::cast_possible_truncation)] // bounded by MAX_POSITIONS
                self.touched.push(w as u32);
            }
            acc[col] |= bits;
        }
    }
}

impl Automaton {
    /// Computes `bits` (this automaton's `words` words, every one written) from
    /// `prev`, the bits before one classified message. Returns whether any
    /// sequence's last element is now set.
    #[inline]
    pub(crate) fn step(
        &self,
        bits: &mut [u64],
        prev: &[u64],
        message: &Classified<'_>,
        scratch: &mut StepScratch,
    ) -> bool {
        let w = self.words;
        if w == 0 {
            return false;
        }
        let kind = base_index(message.base);
        let pass = &self.pass[kind * w..][..w];
        let (starts, ends) = (&self.starts[..w], &self.ends[..w]);
        let (bits, prev) = (&mut bits[..w], &prev[..w]);
        let mut hit = 0u64;
        bits[0] = ((prev[0] << 1) | starts[0]) & pass[0];
        hit |= bits[0] & ends[0];
        for i in 1..w {
            let next = ((prev[i] << 1) | (prev[i - 1] >> 63) | starts[i]) & pass[i];
            bits[i] = next;
            hit |= next & ends[i];
        }
        if message.responder.is_none() && message.atoms.is_empty() {
            return hit != 0;
        }

        // The fix-up: the words the message's responder and atoms touch, with the
        // full formula, from the bits before the step.
        if scratch.acc.len() != w {
            *scratch = StepScratch::new(w);
        }
        scratch.touched.clear();
        if let Some(r) = message.responder {
            scratch.add(&self.req_r[r as usize], 0);
            scratch.add(&self.neg_r[r as usize], 2);
        }
        for &atom in message.atoms {
            scratch.add(&self.req_x[atom as usize], 1);
            scratch.add(&self.neg_x[atom as usize], 2);
        }
        let base = &self.fail_base[kind * w..][..w];
        let (mut stale, mut fixed) = (false, 0u64);
        for &i in &scratch.touched {
            let i = i as usize;
            let [acc_r, acc_x, neg] = std::mem::take(&mut scratch.acc[i]);
            let fail = base[i] | (self.req_r_all[i] & !acc_r) | (self.req_x_all[i] & !acc_x) | neg;
            let carry = if i == 0 { 0 } else { prev[i - 1] >> 63 };
            let next = ((prev[i] << 1) | carry | self.starts[i]) & !fail;
            stale |= bits[i] & self.ends[i] != 0;
            bits[i] = next;
            fixed |= next & self.ends[i];
        }
        if stale {
            // A word the dense pass saw fire was recomputed: count again.
            return bits.iter().zip(&self.ends).any(|(b, e)| b & e != 0);
        }
        hit | fixed != 0
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

    /// Every sequence among the first `sequences` with some progress, as `(sequence,
    /// progress)` in sequence order: one walk over the set bits (a sequence's
    /// positions are consecutive, so its highest set bit is the last one seen before
    /// the next sequence's), the work growing with the words and the set bits, not
    /// with all sequences.
    pub(crate) fn progressing<'a>(
        &'a self,
        bits: &'a [u64],
        sequences: usize,
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        let mut w = 0;
        let mut word = bits.first().copied().unwrap_or(0);
        // The sequence being walked and its progress so far.
        let mut pending: Option<(usize, usize)> = None;
        let mut done = false;
        std::iter::from_fn(move || {
            while !done {
                while word == 0 {
                    w += 1;
                    match bits.get(w) {
                        Some(&next) => word = next,
                        None => {
                            done = true;
                            return pending.take();
                        }
                    }
                }
                let p = w * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                // The stop tree's sequences follow the task's.
                let s = self.seq_of.get(p).map_or(usize::MAX, |&s| s as usize);
                if s >= sequences {
                    done = true;
                    return pending.take();
                }
                let progress = p - self.spans[s].0 as usize + 1;
                match pending {
                    Some((walked, _)) if walked == s => pending = Some((s, progress)),
                    _ => {
                        if let Some(previous) = pending.replace((s, progress)) {
                            return Some(previous);
                        }
                    }
                }
            }
            None
        })
    }

    /// The number of positions.
    pub(crate) fn positions(&self) -> usize {
        self.seq_of.len()
    }

    /// Heap bytes held by the program.
    pub(crate) fn heap_bytes(&self) -> usize {
        let dense = self.pass.len()
            + self.starts.len()
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
