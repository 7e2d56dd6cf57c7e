//! Lists of done sequences, as a task is configured with them.

use std::ops::Deref;

use crate::{DoneSequence, Error};

/// The done sequences of one task, in priority order.
///
/// It is a `Vec<DoneSequence>` whose construction reports *which* entry is bad: with
/// the `serde` feature it deserializes from a list that may mix DSL strings and
/// Langroid-style objects, and [`DoneSequences::parse_all`] does the same for text.
///
/// # Example
///
/// ```
/// use doneseq::DoneSequences;
///
/// let seqs = DoneSequences::parse_all(["T[calculator], A", "C[quit|bye]"])?;
/// assert_eq!(seqs.len(), 2);
///
/// let err = DoneSequences::parse_all(["T, A", "T["]).unwrap_err();
/// assert_eq!(err.index(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DoneSequences(Vec<DoneSequence>);

/// A bad entry in a list of done sequences: its index and what is wrong with it.
///
/// ```
/// use doneseq::{DoneSequences, Error};
///
/// let err = DoneSequences::parse_all(["T, A", "L", "T[calc"]).unwrap_err();
/// assert_eq!(err.index(), 2);
/// assert!(matches!(err.error(), Error::Parse(e) if e.span() == (1..2)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("done sequence {index}: {error}")]
pub struct ListError {
    pub(crate) index: usize,
    // Boxed: an `Error` is large, and it can hold a `ListError`.
    pub(crate) error: Box<Error>,
}

impl ListError {
    /// The index of the bad entry, from 0.
    #[must_use]
    pub fn index(&self) -> usize {
        self.index
    }

    /// What is wrong with it.
    #[must_use]
    pub fn error(&self) -> &Error {
        &self.error
    }
}

impl DoneSequences {
    /// Parses every text as a sequence. Equal regexes are compiled once, and all of
    /// them together take at most [`MAX_REGEX_MEMORY`](crate::MAX_REGEX_MEMORY) bytes.
    ///
    /// # Errors
    ///
    /// The first text that does not parse, with its index.
    pub fn parse_all<I>(texts: I) -> Result<DoneSequences, ListError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        crate::text::scoped(|| {
            texts
                .into_iter()
                .enumerate()
                .map(|(index, text)| {
                    DoneSequence::parse(text.as_ref()).map_err(|e| ListError {
                        index,
                        error: Box::new(Error::Parse(e)),
                    })
                })
                .collect::<Result<Vec<_>, _>>()
                .map(DoneSequences)
        })
    }

    /// The sequences as a `Vec`.
    #[must_use]
    pub fn into_vec(self) -> Vec<DoneSequence> {
        self.0
    }
}

impl Deref for DoneSequences {
    type Target = [DoneSequence];

    fn deref(&self) -> &[DoneSequence] {
        &self.0
    }
}

impl From<Vec<DoneSequence>> for DoneSequences {
    fn from(sequences: Vec<DoneSequence>) -> DoneSequences {
        DoneSequences(sequences)
    }
}

impl FromIterator<DoneSequence> for DoneSequences {
    fn from_iter<I: IntoIterator<Item = DoneSequence>>(iter: I) -> DoneSequences {
        DoneSequences(iter.into_iter().collect())
    }
}

impl IntoIterator for DoneSequences {
    type Item = DoneSequence;
    type IntoIter = std::vec::IntoIter<DoneSequence>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a DoneSequences {
    type Item = &'a DoneSequence;
    type IntoIter = std::slice::Iter<'a, DoneSequence>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}
