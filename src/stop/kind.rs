//! The kinds of stop, declared by every condition and decided by precedence.

/// How a task ended.
///
/// When several conditions fire at one step, every one is reported
/// ([`crate::Outcome::conditions`]) and the kind with the highest
/// [`precedence`](VerdictKind::precedence) is the outcome's: `Failed`, then
/// `Cancelled`, then `Done`, then `Stuck`, then `Exhausted`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VerdictKind {
    /// The task is complete: a done sequence, a done signal, a done-if option, a
    /// `FINAL` answer, a tool, a text, a confidence or reward threshold.
    Done,
    /// A budget ran out (turns, tokens, time); the answer, if any, is partial.
    Exhausted,
    /// The run repeats itself (loop evidence in the fired condition's detail); the
    /// answer, if any, is partial.
    Stuck,
    /// Errors (consecutive errors, a negative reward streak); the answer, if any, is
    /// partial, never an error message.
    Failed,
    /// The run's cancel handle was set; the answer, if any, is partial.
    Cancelled,
}

impl VerdictKind {
    /// The rank that decides an outcome's kind when several conditions fire at one
    /// step: higher wins.
    ///
    /// `Failed` and `Cancelled` come first: the caller must act on them whatever else
    /// happened. `Done` comes before `Stuck` and `Exhausted`: an answer that arrived
    /// on the last allowed turn is an answer (Langroid's order, where a done sequence
    /// is checked before `max_turns`), and loop evidence explains a budget that ran
    /// out, so `Stuck` beats `Exhausted`.
    ///
    /// ```
    /// use doneseq::VerdictKind;
    ///
    /// let mut kinds = [VerdictKind::Exhausted, VerdictKind::Done, VerdictKind::Failed];
    /// kinds.sort_by_key(|k| std::cmp::Reverse(k.precedence()));
    /// assert_eq!(kinds, [VerdictKind::Failed, VerdictKind::Done, VerdictKind::Exhausted]);
    /// ```
    #[must_use]
    pub const fn precedence(self) -> u8 {
        match self {
            VerdictKind::Exhausted => 0,
            VerdictKind::Stuck => 1,
            VerdictKind::Done => 2,
            VerdictKind::Cancelled => 3,
            VerdictKind::Failed => 4,
        }
    }

    /// The lowercase name: `done`, `exhausted`, `stuck`, `failed`, `cancelled`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            VerdictKind::Done => "done",
            VerdictKind::Exhausted => "exhausted",
            VerdictKind::Stuck => "stuck",
            VerdictKind::Failed => "failed",
            VerdictKind::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for VerdictKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A verdict kind (de)serializes as its lowercase name: `"done"`, `"exhausted"`,
/// `"stuck"`, `"failed"`, `"cancelled"`.
#[cfg(feature = "serde")]
impl serde::Serialize for VerdictKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for VerdictKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<VerdictKind, D::Error> {
        use VerdictKind as K;
        let name = <String as serde::Deserialize>::deserialize(deserializer)?;
        [K::Done, K::Exhausted, K::Stuck, K::Failed, K::Cancelled]
            .into_iter()
            .find(|k| k.as_str() == name)
            .ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "unknown verdict kind '{name}' (expected done, exhausted, stuck, failed or cancelled)"
                ))
            })
    }
}
