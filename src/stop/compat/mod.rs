//! Compatibility faces: the stop-rule APIs of awaken, locus and rlm-code, each mapped
//! onto a [`Condition`](super::Condition).
//!
//! Port a configuration with the names it was written with; what comes out is an
//! ordinary condition tree, which the monitor evaluates like any other. Each face is
//! thin, and says where the peer's behaviour and ours differ and what was chosen:
//!
//! - [`awaken`]: `StopConditionSpec` (the same serde shape, `{"type": "max_rounds",
//!   "rounds": 10}`), `policies_from_specs`, and `StopDecision` from a
//!   [`crate::Verdict`];
//! - [`locus`]: the constructors (`max_iterations`, `tool_called`, `text_mention`, ...)
//!   and `locus_stop_reason`, locus's `StopReason` literal for an outcome;
//! - [`rlm`]: `termination_policy(name, config)`, rlm-code's
//!   `PolicyRegistry.get_termination`.
//!
//! Nothing is dropped on the way: a spec or a configuration that the peer reads as
//! "disabled", or that would mean something else here, is a [`CompatError`] that says
//! so and what to write instead.

pub mod awaken;
pub mod locus;
pub mod rlm;

use std::fmt;

use crate::ParseError;

/// Why a peer's configuration could not be mapped to a condition.
///
/// ```
/// use doneseq::stop::compat::{CompatError, awaken::StopConditionSpec};
/// use doneseq::stop::Condition;
///
/// let err = Condition::try_from(StopConditionSpec::MaxRounds { rounds: 0 }).unwrap_err();
/// assert!(matches!(err, CompatError::Disabled { spec: "max_rounds", field: "rounds" }));
/// assert!(err.to_string().starts_with("max_rounds.rounds is 0"));
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CompatError {
    /// An awaken spec with a 0 limit (or an empty name or pattern), which awaken reads
    /// as "this policy is disabled". doneseq has no disabled conditions: leave the spec
    /// out.
    #[error(
        "{spec}.{field} is {}, which awaken reads as \"disabled\"; doneseq does not \
         drop conditions: remove this spec to disable it",
        if matches!(*field, "tool_name" | "pattern") { "empty" } else { "0" }
    )]
    Disabled {
        /// The spec's `type` (`max_rounds`, `timeout`, ...).
        spec: &'static str,
        /// The field that is 0 or empty.
        field: &'static str,
    },
    /// An awaken `loop_detection` window below 2: one text cannot repeat.
    #[error(
        "loop_detection.window is {window}: a loop needs at least 2 identical texts \
         (awaken reads a window below 2 as \"disabled\"; remove this spec to disable it)"
    )]
    WindowTooSmall {
        /// The window given.
        window: usize,
    },
    /// An awaken `loop_detection` window above [`crate::stop::MAX_LOOP_REPEATS`]
    /// (awaken's validation refuses it too, and a policy built in code with such a
    /// window never fires).
    #[error("loop_detection.window is {window}: at most {max} repeats are looked for")]
    WindowTooLarge {
        /// The window given.
        window: usize,
        /// The largest allowed.
        max: u32,
    },
    /// A regex that does not compile, is empty or is too big.
    #[error("invalid pattern: {error}")]
    InvalidPattern {
        /// What the regex parser said, with the span in the pattern.
        error: ParseError,
    },
    /// An entry of a list failed.
    #[error("{list}[{index}]: {error}")]
    AtIndex {
        /// Which list (`specs`, `policies`, `final_patterns`).
        list: &'static str,
        /// The entry's index.
        index: usize,
        /// What was wrong with it.
        error: Box<CompatError>,
    },
    /// An empty list of specs: it would never stop anything.
    #[error("no stop conditions: an empty list never stops a run")]
    EmptyList,
    /// locus `time_limit` with a number of seconds that is negative, NaN, infinite or
    /// too large for a duration.
    #[error("time limit of {seconds} seconds: expected a finite, non-negative number")]
    InvalidSeconds {
        /// The seconds given.
        seconds: f64,
    },
    /// locus `tool_called_with` whose arguments are not a JSON object.
    #[error("tool arguments must be a JSON object of the values required, not {found}")]
    ArgsNotObject {
        /// The JSON type given (`array`, `string`, ...).
        found: &'static str,
    },
    /// rlm-code: a policy name that is not registered.
    #[error("unknown termination policy {name:?}; available: {}", Names(available))]
    UnknownPolicy {
        /// The name given.
        name: String,
        /// The names there are.
        available: Vec<&'static str>,
    },
    /// rlm-code: a configuration key that the policy does not have (rlm-code keeps it
    /// and never reads it).
    #[error(
        "{policy}: unknown configuration key {key:?}; known keys: {}",
        Names(known)
    )]
    UnknownKey {
        /// The policy's name.
        policy: &'static str,
        /// The key given.
        key: String,
        /// The keys the policy reads.
        known: &'static [&'static str],
    },
    /// rlm-code: a configuration value of the wrong type or out of range.
    #[error("{policy}.{key}: expected {expected}, found {found}")]
    InvalidValue {
        /// The policy's name.
        policy: &'static str,
        /// The key.
        key: &'static str,
        /// What was expected.
        expected: &'static str,
        /// What was given (as JSON).
        found: String,
    },
    /// rlm-code: a configuration that a condition cannot express, or would express
    /// differently; the message says what to write instead.
    #[error("{policy}.{key}: {reason}")]
    Unsupported {
        /// The policy's name.
        policy: &'static str,
        /// The key.
        key: &'static str,
        /// Why, and what to do.
        reason: &'static str,
    },
    /// rlm-code: a composite without sub-policies (rlm-code's AND of nothing stops at
    /// once, its OR of nothing never does).
    #[error("composite: no policies to combine")]
    EmptyComposite,
    /// rlm-code: composites nested deeper than [`crate::stop::MAX_CONDITION_DEPTH`].
    #[error("composite: nested deeper than {max} levels")]
    TooDeep {
        /// The deepest nesting allowed.
        max: usize,
    },
}

/// A list of names, quoted and separated by commas.
struct Names<'a>(&'a [&'static str]);

impl fmt::Display for Names<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name:?}")?;
        }
        Ok(())
    }
}

/// The shape of a condition's canonical text (the stop-expression language), as far
/// as the faces need it to name a stop: the name of a call (`max_turns(25)` →
/// `max_turns`), or the combinator at the top.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leading<'a> {
    /// `name(...)` or a bare `name`.
    Call(&'a str),
    /// `a & b & ...`: the first operand's text.
    All(&'a str),
    /// `a | b | ...`.
    Any,
    /// `!a`.
    Not,
    /// Anything else (empty text, a stray symbol).
    Other,
}

/// Reads the top of a condition's text: a top-level `|` makes it an `Any` (it binds
/// loosest), else a top-level `&` an `All`, else a leading `!` a `Not`, else a call.
/// Parentheses around the whole text are looked through; strings (`"..."`, `'...'`,
/// with backslash escapes) and brackets are skipped.
fn leading(text: &str) -> Leading<'_> {
    let mut text = text.trim();
    // Bounded: each round removes two bytes.
    while let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        if top_level(text, &['(']).is_some_and(|end| end + 1 < text.len()) {
            break; // `(a) & (b)`: the first parenthesis closes early
        }
        text = inner.trim();
    }
    if top_level(text, &['|']).is_some() {
        return Leading::Any;
    }
    if let Some(at) = top_level(text, &['&']) {
        return Leading::All(text[..at].trim());
    }
    if text.starts_with('!') {
        return Leading::Not;
    }
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    if end == 0 {
        Leading::Other
    } else {
        Leading::Call(&text[..end])
    }
}

/// The name of a custom condition from its text, `custom(name, ...)` or
/// `custom("a name", ...)` (a quoted name unescaped as the expression language
/// writes it: `\\` and `\"` are escapes, any other backslash is itself).
fn custom_name(text: &str) -> Option<String> {
    let rest = text.trim().strip_prefix("custom")?.trim_start();
    let rest = rest.strip_prefix('(')?.trim_start();
    let mut chars = rest.chars();
    match chars.next()? {
        quote @ ('"' | '\'') => {
            let mut name = String::new();
            let mut escaped = false;
            for c in chars {
                if escaped {
                    // Only `\\` and an escaped quote are escapes; `\b` stays `\b`.
                    if c != '\\' && c != quote {
                        name.push('\\');
                    }
                    name.push(c);
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == quote {
                    return Some(name);
                } else {
                    name.push(c);
                }
            }
            None
        }
        _ => {
            let end = rest.find([',', ')']).unwrap_or(rest.len());
            let name = rest[..end].trim();
            (!name.is_empty()).then(|| name.to_owned())
        }
    }
}

/// The byte offset of the first of `targets` at nesting depth 0, outside strings; for
/// `(` as the target, the offset of the `)` that closes a leading `(`.
fn top_level(text: &str, targets: &[char]) -> Option<usize> {
    let closing = targets == ['('];
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                if closing && depth == 0 {
                    return Some(at);
                }
            }
            _ if !closing && depth == 0 && targets.contains(&c) => return Some(at),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{Leading, custom_name, leading};

    #[test]
    fn leading_reads_the_top_of_a_condition_text() {
        let cases = [
            ("max_turns(25)", Leading::Call("max_turns")),
            ("  final ", Leading::Call("final")),
            ("text(\"a|b & c\")", Leading::Call("text")),
            ("text('it\\'s | x')", Leading::Call("text")),
            ("tool(\"x\") & confidence(0.9)", Leading::All("tool(\"x\")")),
            ("tool(x) & confidence(0.9) | max_turns(3)", Leading::Any),
            ("(tool(x) & confidence(0.9))", Leading::All("tool(x)")),
            ("(a) & (b)", Leading::All("(a)")),
            ("((max_turns(1)))", Leading::Call("max_turns")),
            ("!tool(x)", Leading::Not),
            ("all(a, b)", Leading::Call("all")),
            ("seq(\"T[x], A\")", Leading::Call("seq")),
            ("", Leading::Other),
            ("?", Leading::Other),
        ];
        for (text, expected) in cases {
            assert_eq!(leading(text), expected, "{text}");
        }
    }

    #[test]
    fn custom_name_reads_a_bare_or_quoted_name() {
        let cases = [
            ("custom(converged)", Some("converged")),
            (
                "custom(converged, config={\"window\": 3})",
                Some("converged"),
            ),
            ("custom(\"my name\", config=1)", Some("my name")),
            ("custom('say \"hi\"')", Some("say \"hi\"")),
            (r#"custom("a\\b\"c")"#, Some(r#"a\b"c"#)),
            (r#"custom("\bDONE\b")"#, Some(r"\bDONE\b")),
            ("custom(\"unterminated", None),
            ("custom()", None),
            ("max_turns(3)", None),
        ];
        for (text, expected) in cases {
            assert_eq!(custom_name(text).as_deref(), expected, "{text}");
        }
    }
}
