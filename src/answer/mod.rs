//! The FINAL answer protocol: how a model says it is done, and with what answer.
//!
//! An RLM-style model ends its loop by writing `FINAL(answer)`, `FINAL_VAR(name)` (the
//! answer is a variable of its REPL) or `SUBMIT(field=value, ...)` (the answer is a set
//! of named output fields), in its prose or in the code it runs. This module finds
//! those calls with a small tokenizer rather than regexes, and turns them into values.
//! The matching engine calls [`FinalDetector::find`] once per message for the DSL
//! event `F` ([`crate::Monitor`]); it is also a stop condition of its own ([`FinalPatternPolicy`]).
//!
//! # Overview
//!
//! - [`FinalDetector`]: finds the signal in a message. [`FinalDetector::find`] is the
//!   non-allocating fast path (a [`FinalMatch`] of spans), [`FinalDetector::detect`]
//!   builds a full [`FinalDetection`]. [`FinalOptions`] chooses prose or code, and a
//!   strict mode for prose.
//! - [`detect_final_in_text`] and [`detect_final_in_code`]: the two detectors of
//!   rlm-code, by their names.
//! - [`AnswerValue`]: the answer as a value (a Python literal or JSON value, or the
//!   expression text); [`format_final_answer`] turns it into the answer text.
//! - [`resolve_final_var`]: a `FINAL_VAR` name looked up in a namespace.
//! - [`extract_code_blocks`]: the code a model wrote in fenced blocks.
//! - [`FinalPatternPolicy`]: rlm-code's `final_pattern` termination policy.
//!
//! # Example: prose
//!
//! ```
//! use doneseq::answer::{AnswerValue, FinalKind, detect_final_in_text};
//!
//! let d = detect_final_in_text("Based on my analysis, FINAL(\"42\")");
//! assert!(d.detected);
//! assert_eq!(d.kind, Some(FinalKind::Direct));
//! assert_eq!(d.content.as_deref(), Some("42"));
//! assert_eq!(d.raw_match.as_deref(), Some("FINAL(\"42\")"));
//! assert_eq!(d.span, Some(22..33));
//! assert_eq!(d.value, Some(AnswerValue::from("42")));
//!
//! // Parentheses balance, strings are strings, names are whole words.
//! assert_eq!(detect_final_in_text("FINAL(f(x))").content.as_deref(), Some("f(x)"));
//! assert_eq!(detect_final_in_text("FINAL(\"a)b\")").content.as_deref(), Some("a)b"));
//! assert!(!detect_final_in_text("NOT_FINAL(3)").detected);
//! assert!(!detect_final_in_text("This is the final (third) draft").detected);
//! ```
//!
//! # Example: the per-message fast path
//!
//! ```
//! use doneseq::answer::{FinalDetector, FinalKind, FinalOptions};
//!
//! let detector = FinalDetector::new(FinalOptions::text().strict(true));
//! let text = "Done.\nFINAL_VAR(report)\n";
//! let m = detector.find(text).expect("a signal");
//! assert_eq!(m.kind(), FinalKind::Variable);
//! assert_eq!(&text[m.span()], "FINAL_VAR(report)");
//! assert_eq!(&text[m.arg_span()], "report");
//! // Strict: the signal must start its line.
//! assert!(detector.find("Now I call FINAL_VAR(report)").is_none());
//! ```
//!
//! # Example: code, resolution and formatting
//!
//! ```
//! use doneseq::answer::{AnswerValue, FinalKind, detect_final_in_code, format_final_answer,
//!                       resolve_final_var};
//! use std::collections::BTreeMap;
//!
//! let code = "# FINAL(draft) is a comment\nsummary = compute()\nFINAL_VAR(\"summary\")";
//! let d = detect_final_in_code(code);
//! assert_eq!(d.kind, Some(FinalKind::Variable));
//! assert_eq!(d.content.as_deref(), Some("summary"));
//!
//! let namespace = BTreeMap::from([("summary".to_string(), AnswerValue::from(vec![
//!     AnswerValue::from("line 1"), AnswerValue::from("line 2"),
//! ]))]);
//! let value = resolve_final_var("summary", &namespace)?;
//! assert_eq!(format_final_answer(value), "line 1\nline 2");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The rules, and where they differ from rlm-code
//!
//! rlm-code (`rlm_code.rlm.termination`, `rlm_code.rlm.policies`) finds these calls
//! with regexes, and each of them is wrong on some input (nesting, strings, word
//! boundaries or prose). This
//! module keeps its documented results and changes these:
//!
//! - **Parentheses balance and strings are tokens**: `FINAL(f(x))` is `f(x)` (rlm-code:
//!   `f(x`), `SUBMIT(answer=f(x))` is the field `answer` = `f(x)`, `FINAL("a)b")` is
//!   `a)b`. String literals follow Python (all quote forms, prefixes, escapes, triple
//!   quotes). In prose, a quote right after a letter is an apostrophe (`it's`), and an
//!   unterminated quote is a plain character.
//! - **Names are whole, case-sensitive words**: `NOT_FINAL(3)`, `FINALIZE(x)`,
//!   `final(ly)` and "the final (third) draft" are not signals (rlm-code's text
//!   patterns have no word boundary, and its policy is case-insensitive by default).
//!   `FINAL_VAR` is read before `FINAL`.
//! - **A signal may be followed by text**: "I will call FINAL(answer) when done. More
//!   text" is a signal in prose (rlm-code misses it because its bare pattern needs the
//!   `)` at the end of a line, which also misses real answers such as "FINAL(42) — that
//!   is all"). Strict mode ([`FinalOptions::strict`]) rejects it: a signal must start
//!   its line, which also keeps it out of quotes and inline code on that line.
//! - **Two different signals are ambiguous** in prose: `FINAL("a") and FINAL("b")` is
//!   not detected, and [`FinalDetection::ambiguity`] says where both are (rlm-code
//!   answers `a") and FINAL("b`). The same signal twice is not a conflict. In code,
//!   several calls are normal (`if short: FINAL(x)` then `FINAL_VAR("y")`): the first
//!   in source order is reported, since which one runs is decided at run time.
//! - **Negated prose is not a signal**: "Do not call FINAL_VAR(x) yet", "never use
//!   FINAL(...)" (rlm-code detects both). The rule is narrow and documented on
//!   [`RejectReason::Negated`].
//! - **Mismatched quotes in prose keep the answer**: `FINAL("He said "hi"")` is `He said
//!   "hi"` (rlm-code: `He said "hi`): when the argument is not a literal but starts and
//!   ends with the same quote, those quotes are taken as its delimiters.
//! - **In code, comments and strings are skipped** (`# FINAL(x)` and `"FINAL(x)"` are
//!   not calls; rlm-code detects them), and so are `obj.FINAL(x)` and `def FINAL(x):`.
//! - **`FINAL(expr)` in code reports the expression** as its content, and its value is
//!   the literal when the expression is one ([`AnswerValue::Expr`] otherwise); rlm-code
//!   leaves the content `None`.
//! - **`FINAL_VAR(name)` takes a bare or a quoted identifier**, in prose and in code
//!   (rlm-code's text detector takes both, its policy only the quoted form). Anything
//!   else (`FINAL_VAR(x[0])`, `FINAL_VAR("my var")`) is rejected.
//! - **Rejections are reported**: [`FinalDetection::rejected`] lists the candidates
//!   that were not signals, and why.
//!
//! The policy's differences are on [`FinalPatternPolicy`].

mod args;
mod blocks;
mod detect;
pub(crate) mod done;
mod format;
mod lex;
mod literal;
mod policy;
mod resolve;
mod scan;
#[cfg(feature = "serde")]
mod serde_impl;
mod value;

use std::fmt;
use std::ops::Range;

pub use self::args::MAX_SUBMIT_FIELDS;
pub use self::blocks::extract_code_blocks;
pub use self::detect::{detect_final_in_code, detect_final_in_text};
pub use self::format::format_final_answer;
pub use self::literal::{LiteralError, MAX_LITERAL_DEPTH};
pub use self::policy::{Decision, FinalPatternConfig, FinalPatternPolicy, PolicyError, Trigger};
pub use self::resolve::{ResolveError, resolve_final_var};
pub use self::value::AnswerValue;

/// Which call a signal is.
///
/// ```
/// use doneseq::answer::FinalKind;
///
/// assert_eq!(FinalKind::Variable.as_str(), "variable");
/// assert_eq!(FinalKind::Submit.name(), "SUBMIT");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FinalKind {
    /// `FINAL(answer)`: the answer is the argument.
    Direct,
    /// `FINAL_VAR(name)`: the answer is the value of a variable, see
    /// [`resolve_final_var`].
    Variable,
    /// `SUBMIT(field=value, ...)`: the answer is a set of named fields.
    Submit,
}

impl FinalKind {
    /// rlm-code's `final_type`: `"direct"`, `"variable"` or `"submit"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            FinalKind::Direct => "direct",
            FinalKind::Variable => "variable",
            FinalKind::Submit => "submit",
        }
    }

    /// The function's name: `FINAL`, `FINAL_VAR` or `SUBMIT`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            FinalKind::Direct => "FINAL",
            FinalKind::Variable => "FINAL_VAR",
            FinalKind::Submit => "SUBMIT",
        }
    }
}

impl fmt::Display for FinalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a candidate (a signal name followed by `(`) is not a signal.
///
/// ```
/// use doneseq::answer::{RejectReason, detect_final_in_text};
///
/// let d = detect_final_in_text("Do not call FINAL_VAR(x) yet");
/// assert!(!d.detected);
/// assert_eq!(d.rejected[0].reason, RejectReason::Negated);
/// assert_eq!(d.rejected[0].span, 12..24);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RejectReason {
    /// The `(` is never closed, e.g. `FINAL(42`.
    Unclosed,
    /// Nothing between the parentheses, e.g. `FINAL()`, `SUBMIT( )`.
    EmptyArgument,
    /// `FINAL_VAR`'s argument is not one identifier, bare or quoted, e.g.
    /// `FINAL_VAR(x[0])`, `FINAL_VAR("my var")`.
    InvalidVariableName,
    /// `SUBMIT`'s arguments are not `name=value` pairs, e.g. `SUBMIT(42)`,
    /// `SUBMIT(a=)`.
    InvalidSubmitArguments,
    /// A `SUBMIT` field is named twice, e.g. `SUBMIT(a=1, a=2)` (Python refuses it).
    DuplicateField,
    /// A `SUBMIT` has more than [`MAX_SUBMIT_FIELDS`] fields.
    TooManyFields,
    /// In prose, the words right before the name negate it, e.g. "Do not call
    /// FINAL_VAR(x) yet", "never use FINAL(...)", "don't FINAL(x)".
    ///
    /// Reading backwards from the name, within its line and clause (no `. ! ? : ; ,`
    /// in between) and over at most four words, words such as "call", "use", "the",
    /// "yet" are skipped, and the first other word decides: a negation ("not", "no",
    /// "never", "don't", "cannot", "avoid", "without", ...) rejects the signal. "I'm not
    /// sure but FINAL(42)" and "No, FINAL(42)" are signals.
    Negated,
    /// In strict prose, the name does not start its line, e.g. `` `FINAL(x)` ``, `I
    /// call FINAL(x)`.
    NotAtLineStart,
    /// In code, the name is an attribute, e.g. `obj.FINAL(x)`.
    Attribute,
    /// In code, the name is being defined, e.g. `def FINAL(x):`.
    Definition,
    /// More than 8 calls open inside one another (only reachable when the outer ones
    /// never close).
    NestedTooDeep,
}

impl RejectReason {
    /// A stable machine name, e.g. `"negated"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            RejectReason::Unclosed => "unclosed",
            RejectReason::EmptyArgument => "empty_argument",
            RejectReason::InvalidVariableName => "invalid_variable_name",
            RejectReason::InvalidSubmitArguments => "invalid_submit_arguments",
            RejectReason::DuplicateField => "duplicate_field",
            RejectReason::TooManyFields => "too_many_fields",
            RejectReason::Negated => "negated",
            RejectReason::NotAtLineStart => "not_at_line_start",
            RejectReason::Attribute => "attribute",
            RejectReason::Definition => "definition",
            RejectReason::NestedTooDeep => "nested_too_deep",
        }
    }
}

impl fmt::Display for RejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RejectReason::Unclosed => "the parenthesis is never closed",
            RejectReason::EmptyArgument => "the argument is empty",
            RejectReason::InvalidVariableName => {
                "the argument is not a variable name (expected FINAL_VAR(name) or FINAL_VAR(\"name\"))"
            }
            RejectReason::InvalidSubmitArguments => {
                "the arguments are not keyword arguments (expected SUBMIT(name=value, ...))"
            }
            RejectReason::DuplicateField => "a field is given twice",
            RejectReason::TooManyFields => "too many fields",
            RejectReason::Negated => "the words before it negate it",
            RejectReason::NotAtLineStart => "it does not start its line (strict mode)",
            RejectReason::Attribute => "it is an attribute of another object",
            RejectReason::Definition => "it is being defined, not called",
            RejectReason::NestedTooDeep => "it is nested too deep in unclosed calls",
        })
    }
}

/// A candidate that is not a signal: where it is and why.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Rejection {
    /// The call, from its name to its `)` (or its `(` when it never closes, or the
    /// name alone in code when it is not a call of ours).
    pub span: Range<usize>,
    /// Why it is not a signal.
    pub reason: RejectReason,
}

/// Two different signals in one text, neither of which is taken.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Ambiguity {
    /// The first signal.
    pub first: Range<usize>,
    /// The first later signal that says something else.
    pub second: Range<usize>,
}

/// What to read, and how strictly.
///
/// Built with `const` setters from [`FinalOptions::text`] (the default) or
/// [`FinalOptions::code`].
///
/// ```
/// use doneseq::answer::FinalOptions;
///
/// let opts = FinalOptions::text().strict(true);
/// assert!(opts.is_strict() && !opts.is_code());
/// assert_eq!(FinalOptions::default(), FinalOptions::text());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FinalOptions {
    code: bool,
    strict: bool,
}

impl FinalOptions {
    /// Prose, lenient: a model's message. Signals may stand anywhere, several
    /// different ones are ambiguous, negated ones are rejected.
    #[must_use]
    pub const fn text() -> Self {
        FinalOptions {
            code: false,
            strict: false,
        }
    }

    /// Python code: comments and string literals are skipped, attributes and
    /// definitions are not calls, and several calls are not ambiguous (the first in
    /// source order is reported).
    #[must_use]
    pub const fn code() -> Self {
        FinalOptions {
            code: true,
            strict: false,
        }
    }

    /// In prose, whether a signal must start its line (after spaces or tabs only).
    /// That also keeps it out of quotes and inline code on that line. No effect on
    /// code.
    #[must_use]
    pub const fn strict(self, yes: bool) -> Self {
        FinalOptions {
            strict: yes,
            ..self
        }
    }

    /// Whether strict mode is on (and applies: not for code).
    #[must_use]
    pub const fn is_strict(self) -> bool {
        self.strict && !self.code
    }

    /// Whether the input is read as code.
    #[must_use]
    pub const fn is_code(self) -> bool {
        self.code
    }

    pub(crate) const fn dialect(self) -> lex::Dialect {
        if self.code {
            lex::Dialect::Code
        } else {
            lex::Dialect::Text
        }
    }
}

/// Finds the FINAL protocol's signal in a message.
///
/// Read-only and cheap to copy; build it once and call it per message.
/// [`FinalDetector::find`] does not allocate; [`FinalDetector::detect`] gives the
/// content and the value as well.
///
/// ```
/// use doneseq::answer::{FinalDetector, FinalKind};
///
/// let detector = FinalDetector::default(); // lenient prose
/// let text = "Answer: SUBMIT(answer=42, confidence=0.9)";
/// let m = detector.find(text).unwrap();
/// assert_eq!(m.kind(), FinalKind::Submit);
/// assert_eq!(&text[m.arg_span()], "answer=42, confidence=0.9");
///
/// let d = detector.detect(text);
/// let fields = d.submit_fields().unwrap();
/// assert_eq!(fields[0].0, "answer");
/// assert_eq!(fields[1].1.to_string(), "0.9");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FinalDetector {
    options: FinalOptions,
}

/// Where a signal is: the non-allocating result of [`FinalDetector::find`].
///
/// ```
/// use doneseq::answer::{FinalDetector, FinalKind};
///
/// let text = r#"FINAL("a") and FINAL("b")"#;
/// let m = FinalDetector::default().find(text).unwrap();
/// assert!(m.is_ambiguous());
/// assert_eq!(m.span(), 0..10);
/// assert_eq!(m.conflict_span(), Some(15..25));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FinalMatch {
    kind: FinalKind,
    span: (usize, usize),
    arg: (usize, usize),
    conflict: Option<(usize, usize)>,
}

impl FinalMatch {
    /// Which call it is.
    #[must_use]
    pub const fn kind(&self) -> FinalKind {
        self.kind
    }

    /// The whole call, from its name to its closing parenthesis.
    #[must_use]
    pub const fn span(&self) -> Range<usize> {
        self.span.0..self.span.1
    }

    /// What identifies the answer: the trimmed argument of `FINAL` (after `answer=`)
    /// and of `SUBMIT`, and the variable name of `FINAL_VAR` without its quotes.
    #[must_use]
    pub const fn arg_span(&self) -> Range<usize> {
        self.arg.0..self.arg.1
    }

    /// Whether a later signal says something else (prose only). Then the text gives
    /// no answer: [`FinalDetector::detect`] reports it as not detected.
    #[must_use]
    pub const fn is_ambiguous(&self) -> bool {
        self.conflict.is_some()
    }

    /// The conflicting signal, when [`FinalMatch::is_ambiguous`].
    #[must_use]
    pub const fn conflict_span(&self) -> Option<Range<usize>> {
        match self.conflict {
            Some((s, e)) => Some(s..e),
            None => None,
        }
    }
}

/// What [`detect_final_in_text`], [`detect_final_in_code`] and
/// [`FinalDetector::detect`] found: rlm-code's `FinalDetection`, with spans, the value,
/// the ambiguity and the rejected candidates.
///
/// When `detected` is true, `kind`, `content`, `raw_match` and `span` are set, and
/// `value` too except for `FINAL_VAR` (its value is in the namespace: see
/// [`resolve_final_var`]). When it is false they are all `None`.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct FinalDetection {
    /// Whether the text holds one unambiguous signal.
    pub detected: bool,
    /// rlm-code's `final_type`.
    pub kind: Option<FinalKind>,
    /// The answer as text: a string literal's value (`FINAL("42")` → `42`), a
    /// variable's name, otherwise the argument as written (`FINAL(f(x))` → `f(x)`,
    /// `SUBMIT(a=1)` → `a=1`).
    pub content: Option<String>,
    /// The whole call as written.
    pub raw_match: Option<String>,
    /// The byte span of `raw_match` in the input.
    pub span: Option<Range<usize>>,
    /// The answer as a value: the literal (`FINAL(42)` → `Int(42)`), a string
    /// otherwise in prose, [`AnswerValue::Expr`] otherwise in code; for `SUBMIT`, an
    /// object of its fields. `None` for `FINAL_VAR`.
    pub value: Option<AnswerValue>,
    /// Set when the text held two different signals (prose only).
    pub ambiguity: Option<Ambiguity>,
    /// The candidates that were not signals, in the order met, at most
    /// [`FinalDetection::MAX_REJECTIONS`]. The scan stops once the answer is decided
    /// (in code at the first call, in prose at the first conflict), so later
    /// candidates are not listed.
    pub rejected: Vec<Rejection>,
}

impl FinalDetection {
    /// The most rejections one detection lists.
    pub const MAX_REJECTIONS: usize = 16;

    /// A `SUBMIT`'s fields, in order.
    #[must_use]
    pub fn submit_fields(&self) -> Option<&[(String, AnswerValue)]> {
        match (&self.kind, &self.value) {
            (Some(FinalKind::Submit), Some(AnswerValue::Object(fields))) => Some(fields),
            _ => None,
        }
    }

    /// Whether two different signals cancelled each other.
    #[must_use]
    pub fn is_ambiguous(&self) -> bool {
        self.ambiguity.is_some()
    }
}
