//! Bit sets over element positions, dense and sparse.
//!
//! Position `p` is bit `p % 64` of word `p / 64`. Dense sets are the rows every
//! message reads (one per base kind, the starts, the ends); sparse sets are the rows
//! of atoms (a tool name, a regex, a responder), which touch few words each, so that
//! memory and per-message work grow with the literals that mention an atom, not with
//! the number of atoms times the number of words.

/// A sparse bit set: the non-zero words, as `(word index, bits)` in index order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sparse(Vec<(u32, u64)>);

impl Sparse {
    /// Adds position `p`.
    pub(crate) fn insert(&mut self, p: usize) {
        let (word, bit) = split(p);
        match self.0.binary_search_by_key(&word, |&(w, _)| w) {
            Ok(i) => self.0[i].1 |= bit,
            Err(i) => self.0.insert(i, (word, bit)),
        }
    }

    /// The non-zero words, as `(word index, bits)` in index order.
    pub(crate) fn words(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.0.iter().map(|&(w, bits)| (w as usize, bits))
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.0.capacity() * std::mem::size_of::<(u32, u64)>()
    }
}

/// Sets position `p` in a dense row.
pub(crate) fn set(dense: &mut [u64], p: usize) {
    let (word, bit) = split(p);
    dense[word as usize] |= bit;
}

/// Whether position `p` is set in a dense row.
pub(crate) fn get(dense: &[u64], p: usize) -> bool {
    let (word, bit) = split(p);
    dense.get(word as usize).is_some_and(|w| w & bit != 0)
}

/// The highest set position in `lo..hi` of a dense row, if any: a word at a time.
pub(crate) fn highest_in(dense: &[u64], lo: usize, hi: usize) -> Option<usize> {
    if lo >= hi {
        return None;
    }
    let (first, last) = (lo / 64, (hi - 1) / 64);
    for w in (first..=last).rev() {
        let mut word = dense.get(w).copied().unwrap_or(0);
        if w == last {
            word &= u64::MAX >> (63 - (hi - 1) % 64);
        }
        if w == first {
            word &= u64::MAX << (lo % 64);
        }
        if word != 0 {
            return Some(w * 64 + 63 - word.leading_zeros() as usize);
        }
    }
    None
}

/// The number of words that hold `positions` bits.
pub(crate) const fn words_for(positions: usize) -> usize {
    positions.div_ceil(64)
}

#[allow(clippy::cast_possible_truncation)] // positions are bounded by MAX_POSITIONS
const fn split(p: usize) -> (u32, u64) {
    ((p / 64) as u32, 1u64 << (p % 64))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time search against a walk of every position.
    #[test]
    fn highest_in_agrees_with_a_walk() {
        let rows: [&[u64]; 4] = [
            &[0, 0, 0],
            &[1, 1 << 63, 0b1010],
            &[u64::MAX, 0, u64::MAX],
            &[0x8000_0000_0000_0001, 0x10, 0],
        ];
        for row in rows {
            for lo in 0..=192 {
                for hi in lo..=192 {
                    let walk = (lo..hi).rev().find(|&p| get(row, p));
                    assert_eq!(highest_in(row, lo, hi), walk, "{row:?} {lo}..{hi}");
                }
            }
        }
    }

    #[test]
    fn sparse_insert_keeps_order_and_merges() {
        let mut s = Sparse::default();
        for p in [130, 3, 64, 5, 129] {
            s.insert(p);
        }
        assert_eq!(
            s.0,
            vec![(0, (1 << 3) | (1 << 5)), (1, 1), (2, (1 << 2) | (1 << 1))]
        );
        let mut dense = vec![0u64; 3];
        for (w, bits) in s.words() {
            dense[w] |= bits;
        }
        assert!(get(&dense, 130) && get(&dense, 64) && !get(&dense, 4));
        assert_eq!(highest_in(&dense, 0, 64), Some(5));
        assert_eq!(highest_in(&dense, 6, 64), None);
    }
}
