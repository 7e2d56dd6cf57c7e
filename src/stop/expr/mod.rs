//! The stop-expression language: the text form of a [`Condition`] tree.
//!
//! `(tool(send_summary) & confidence(0.9)) | text("\bDONE\b") | max_turns(10)` parses
//! ([`Condition::parse`], `FromStr`) into a tree, and `Display` prints the canonical
//! text of any tree, which parses back to an equal value. The grammar is normative in
//! the crate's `grammar.md` ("Stop expressions", in the [`crate::dsl`] docs).
//!
//! [`Condition::validate`] checks the limits that parsing enforces on a tree built in
//! Rust.

mod display;
mod error;
mod parse;

use super::table::ConditionId;
pub(crate) use super::table::{
    BUILTINS, Builtin, LOOP_OVER, PHASES, Param, ParamKind, builtin, known_conditions,
};

pub(crate) use self::display::{over_word, phase_word};
pub use self::error::{ExprError, ExprErrorKind};
#[cfg(feature = "serde")]
pub(crate) use self::parse::parse_duration;
use super::{
    Condition, MAX_CONDITION_DEPTH, MAX_CONDITION_NODES, MAX_LOOP_PERIOD, MAX_LOOP_REPEATS,
    MAX_VALUE_DEPTH, Speaker, TextMention,
};

/// The closest of `candidates` to `word`, if it is close: the same letters ignoring
/// case and underscores (`MaxIterations` for `max_iterations`), or at most two edits
/// away (one for short words).
pub(crate) fn closest<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let squash = |s: &str| -> Vec<char> {
        s.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let word = squash(word);
    if word.is_empty() || word.len() > 64 {
        return None;
    }
    let budget = if word.len() <= 4 { 1 } else { 2 };
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let distance = edit_distance(&word, &squash(candidate));
        if distance <= budget && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance, with adjacent transpositions counting as one edit.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}

impl std::str::FromStr for Condition {
    type Err = ExprError;

    /// Parses a stop expression; the same as [`Condition::parse`].
    fn from_str(text: &str) -> Result<Condition, ExprError> {
        Condition::parse(text)
    }
}

impl Condition {
    /// Parses a stop expression such as `tool(submit) | max_turns(10)`; the same as
    /// `str::parse`. The grammar is in `grammar.md` ([`crate::dsl`], "Stop
    /// expressions").
    ///
    /// ```
    /// use doneseq::stop::Condition;
    ///
    /// let stop = Condition::parse(
    ///     r#"(tool(send_summary) & confidence_met(0.9)) | text_mention("\bDONE\b") | max_iterations(10)"#,
    /// )?;
    /// assert_eq!(
    ///     stop,
    ///     Condition::tool("send_summary") & Condition::confidence(0.9)
    ///         | Condition::text(r"\bDONE\b")?
    ///         | Condition::max_model_calls(10),
    /// );
    /// // Display prints the canonical text: canonical names, no needless parentheses.
    /// assert_eq!(
    ///     stop.to_string(),
    ///     r#"tool(send_summary) & confidence(0.9) | text("\bDONE\b") | max_model_calls(10)"#,
    /// );
    /// assert_eq!(Condition::parse(&stop.to_string())?, stop);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// An [`ExprError`] with the byte span of the problem, for instance:
    /// - `""`: nothing ([`ExprErrorKind::Empty`]);
    /// - `"final |"`, `"(final"`, `"final)"`, `"final final"`: a misplaced or missing
    ///   token;
    /// - `"max_turn(3)"`: an unknown condition, with the closest name;
    /// - `"loop(perod=3)"`, `"max_turns(\"3\")"`, `"max_turns"`: an unknown option, a
    ///   value of the wrong type, a missing argument;
    /// - `"seq(\"T A\")"`, `"text(\"(\")"`: a done sequence or a regex that does not
    ///   parse, with the span inside the string;
    /// - over the limits: [`MAX_EXPRESSION_LEN`](crate::stop::MAX_EXPRESSION_LEN)
    ///   bytes, [`MAX_CONDITION_DEPTH`] levels, [`MAX_CONDITION_NODES`] conditions, a
    ///   loop's period and repeats.
    ///
    /// [`ExprErrorKind`] documents every case with an input that triggers it.
    pub fn parse(text: &str) -> Result<Condition, ExprError> {
        crate::text::scoped(|| parse::expression(text))
    }

    /// Checks what parsing checks, for a tree built in Rust: at most
    /// [`MAX_CONDITION_DEPTH`] levels of combinators and [`MAX_CONDITION_NODES`]
    /// conditions; a loop's period in 1..=[`MAX_LOOP_PERIOD`] and repeats in
    /// 2..=[`MAX_LOOP_REPEATS`]; finite thresholds; a token budget with at least one
    /// limit; a timeout in whole milliseconds (of at most `u64::MAX`); non-empty
    /// names (tools, responders, exempt tools, custom conditions, the confidence key);
    /// tool `args` that are a JSON object. Every tree that passes prints a text that
    /// parses back to an equal tree.
    ///
    /// The error's input is the tree's canonical text, and its span covers the
    /// condition at fault. The walk is iterative, so a deep tree cannot overflow the
    /// stack here.
    ///
    /// ```
    /// use doneseq::stop::{Condition, LoopDetection};
    ///
    /// assert!((Condition::max_turns(10) | Condition::tool("submit")).validate().is_ok());
    ///
    /// let mut detector = LoopDetection::default();
    /// detector.period = 0;
    /// let err = (Condition::max_turns(10) | Condition::Loop(detector)).validate().unwrap_err();
    /// assert_eq!(err.input(), "max_turns(10) | loop(period=0)");
    /// assert_eq!(&err.input()[err.span()], "loop(period=0)");
    /// assert_eq!(err.kind().name(), "out_of_range");
    /// ```
    ///
    /// # Errors
    ///
    /// The first fault in pre-order (a parent before its children, children in
    /// order).
    pub fn validate(&self) -> Result<(), ExprError> {
        let mut stack: Vec<(&Condition, usize)> = vec![(self, 0)];
        let mut index = 0usize;
        while let Some((node, ancestors)) = stack.pop() {
            let fault = if index >= MAX_CONDITION_NODES {
                Some(ExprErrorKind::TooManyNodes {
                    max: MAX_CONDITION_NODES,
                })
            } else if node.is_combinator() && ancestors >= MAX_CONDITION_DEPTH {
                Some(ExprErrorKind::TooDeep {
                    max: MAX_CONDITION_DEPTH,
                })
            } else {
                fault(node)
            };
            if let Some(kind) = fault {
                let (text, span) = display::text_with_span(self, index);
                return Err(ExprError::built(kind, span, &text));
            }
            stack.extend(node.children().iter().rev().map(|c| (c, ancestors + 1)));
            index += 1;
        }
        Ok(())
    }

    /// The canonical name of the condition at the root: `max_turns`, `tool`, `all`,
    /// ... (the tag of its serde form).
    ///
    /// ```
    /// use doneseq::stop::Condition;
    ///
    /// assert_eq!(Condition::max_turns(3).canonical_name(), "max_turns");
    /// assert_eq!((Condition::Final | Condition::Cancelled).canonical_name(), "any");
    /// ```
    #[must_use]
    pub fn canonical_name(&self) -> &'static str {
        self.id().name()
    }

    /// Which built-in or combinator this node is.
    #[must_use]
    pub const fn id(&self) -> ConditionId {
        match self {
            Condition::Sequence(_) => ConditionId::Seq,
            Condition::Final => ConditionId::Final,
            Condition::DoneSignal => ConditionId::DoneSignal,
            Condition::MaxTurns(_) => ConditionId::MaxTurns,
            Condition::MaxModelCalls(_) => ConditionId::MaxModelCalls,
            Condition::MaxMessages(_) => ConditionId::MaxMessages,
            Condition::StopMessage => ConditionId::StopMessage,
            Condition::Handoff(_) => ConditionId::Handoff,
            Condition::Tokens(_) => ConditionId::Tokens,
            Condition::Timeout(_) => ConditionId::Timeout,
            Condition::ConsecutiveErrors(_) => ConditionId::ConsecutiveErrors,
            Condition::Tool(_) => ConditionId::Tool,
            Condition::NoToolCalls => ConditionId::NoToolCalls,
            Condition::Text(_) => ConditionId::Text,
            Condition::Confidence(_) => ConditionId::Confidence,
            Condition::Reward(_) => ConditionId::Reward,
            Condition::Loop(_) => ConditionId::Loop,
            Condition::Cancelled => ConditionId::Cancelled,
            Condition::Response(_) => ConditionId::Response,
            Condition::NoResponse(_) => ConditionId::NoResponse,
            Condition::SingleRound { .. } => ConditionId::SingleRound,
            Condition::Custom(_) => ConditionId::Custom,
            Condition::All(_) => ConditionId::All,
            Condition::Any(_) => ConditionId::Any,
            Condition::Not(_) => ConditionId::Not,
        }
    }
}

/// What is wrong with `node` itself (not its children), if anything: the checks the
/// parser makes on values, for a node built another way.
pub(crate) fn fault(node: &Condition) -> Option<ExprErrorKind> {
    let empty = |option| Some(ExprErrorKind::EmptyName { option });
    match node {
        Condition::Tokens(budget) if budget.is_empty() => Some(ExprErrorKind::EmptyBudget),
        Condition::Timeout(limit) => {
            duration_fault(*limit).map(|reason| ExprErrorKind::InvalidDuration { reason })
        }
        Condition::Tool(tool) => {
            if tool.name.as_deref() == Some("") {
                return empty("name");
            }
            match &tool.args {
                Some(args) if !args.is_object() => Some(ExprErrorKind::WrongType {
                    option: "args",
                    expected: "a JSON object",
                    found: json_kind(args).to_owned(),
                }),
                Some(args) => value_fault("args", args),
                None => None,
            }
        }
        Condition::Text(TextMention { from, .. })
        | Condition::Response(from)
        | Condition::NoResponse(from) => from
            .iter()
            .any(|s| matches!(s, Speaker::Responder(name) if name.is_empty()))
            .then_some(ExprErrorKind::EmptyName { option: "from" }),
        Condition::Confidence(c) if !c.threshold.is_finite() => Some(ExprErrorKind::NotFinite {
            option: "threshold",
        }),
        Condition::Confidence(c) if c.key.is_empty() => empty("key"),
        Condition::Reward(r) if !r.threshold.is_finite() => Some(ExprErrorKind::NotFinite {
            option: "threshold",
        }),
        Condition::Loop(l) => {
            let range = |option, found: u32, min, max: u32| {
                (found < min || found > max).then_some(ExprErrorKind::OutOfRange {
                    option,
                    found: u64::from(found),
                    min: u64::from(min),
                    max: u64::from(max),
                })
            };
            range("period", l.period, 1, MAX_LOOP_PERIOD)
                .or_else(|| range("repeats", l.repeats, 2, MAX_LOOP_REPEATS))
                .or_else(|| {
                    l.exempt
                        .iter()
                        .any(String::is_empty)
                        .then_some(ExprErrorKind::EmptyName { option: "exempt" })
                })
        }
        Condition::Custom(c) if c.name.is_empty() => empty("name"),
        Condition::Custom(c) => value_fault("config", &c.config),
        _ => None,
    }
}

/// A JSON value nested deeper than [`MAX_VALUE_DEPTH`].
pub(crate) fn value_fault(
    option: &'static str,
    value: &serde_json::Value,
) -> Option<ExprErrorKind> {
    (json_depth(value) > MAX_VALUE_DEPTH).then_some(ExprErrorKind::ValueTooDeep {
        option,
        max: MAX_VALUE_DEPTH,
    })
}

/// How deeply arrays and objects nest in `value` (a scalar is 0, `[1]` is 1). The
/// walk is iterative: a value built in Rust may be deeper than any reader allows.
pub(crate) fn json_depth(value: &serde_json::Value) -> usize {
    use serde_json::Value;
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|c| (c, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|c| (c, depth + 1))),
            _ => continue,
        }
        deepest = deepest.max(depth + 1);
    }
    deepest
}

/// Why a timeout cannot be written in the language, if it cannot.
pub(crate) fn duration_fault(limit: std::time::Duration) -> Option<&'static str> {
    if !limit.subsec_nanos().is_multiple_of(1_000_000) {
        Some("finer than a millisecond (timeouts are checked at millisecond resolution)")
    } else if u64::try_from(limit.as_millis()).is_err() {
        Some("longer than u64::MAX milliseconds")
    } else {
        None
    }
}

/// A JSON value's kind, in words.
pub(crate) fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
