//! Errors of the stop-expression language: what can go wrong, in the crate's one error
//! scaffold ([`SyntaxError`]).

use std::fmt;
use std::ops::Range;

use crate::ParseErrorKind;
use crate::text::{Lead, SyntaxError, Visible};

/// An error from parsing a stop expression ([`Condition::parse`](crate::stop::Condition::parse))
/// or from checking a condition built in Rust ([`Condition::validate`](crate::stop::Condition::validate)):
/// what went wrong ([`kind`](ExprError::kind)), where ([`span`](ExprError::span), in
/// bytes) and the text it happened in ([`input`](ExprError::input)). For
/// `validate`, the input is the condition's canonical text and the span covers the
/// condition at fault.
///
/// `Display` is one line, fit for logs and serde messages. The alternate form
/// (`{:#}`) draws the input with a caret under the span:
///
/// ```
/// use doneseq::stop::Condition;
///
/// let err = "max_turns(10) | tool(submit) &".parse::<Condition>().unwrap_err();
/// assert_eq!(err.span(), 30..30);
/// assert_eq!(err.kind().name(), "unexpected");
/// assert_eq!(
///     err.to_string(),
///     r#"error parsing stop expression "max_turns(10) | tool(submit) &" at 30..30: expected a condition, found end of input"#,
/// );
/// assert_eq!(
///     format!("{err:#}"),
///     "error: expected a condition, found end of input\n  |\n1 | max_turns(10) | tool(submit) &\n  |                               ^\n",
/// );
/// ```
pub type ExprError = SyntaxError<ExprErrorKind>;

/// What went wrong in a stop expression. Each variant names an input that triggers
/// it; [`name`](ExprErrorKind::name) is a stable machine name.
///
/// Messages are lowercase, say what was expected and what was found, and add a hint
/// in parentheses where one helps.
///
/// ```
/// use doneseq::stop::{Condition, ExprErrorKind};
///
/// let err = "max_turn(10)".parse::<Condition>().unwrap_err();
/// assert!(matches!(err.kind(), ExprErrorKind::UnknownCondition { .. }));
/// assert_eq!(err.kind().name(), "unknown_condition");
/// assert!(err.to_string().contains("did you mean 'max_turns'?"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExprErrorKind {
    /// Nothing but whitespace: `""`, `"  "`.
    Empty,
    /// The text is longer than [`MAX_EXPRESSION_LEN`](crate::stop::MAX_EXPRESSION_LEN)
    /// bytes.
    TooLong {
        /// The length of the input in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Conditions nested deeper than
    /// [`MAX_CONDITION_DEPTH`](crate::stop::MAX_CONDITION_DEPTH): 33 `!` or `(` in a
    /// row, or a tree of that height.
    TooDeep {
        /// The limit.
        max: usize,
    },
    /// More than [`MAX_CONDITION_NODES`](crate::stop::MAX_CONDITION_NODES) conditions
    /// (built-ins and combinators) in one tree.
    TooManyNodes {
        /// The limit.
        max: usize,
    },
    /// A character that cannot come here: `"final |"`, `"& final"`, `"(final final)"`,
    /// `"tool(a b)"`, `"all"` (without its parentheses).
    Unexpected {
        /// What could have come here.
        expected: &'static str,
        /// What came instead; `None` is the end of the input.
        found: Option<char>,
    },
    /// Input after a complete expression: `"final final"`, `"max_turns(3) x"`.
    TrailingInput {
        /// The first character of it.
        found: char,
    },
    /// A `(` without its `)`: `"(final"`, `"max_turns(3"`, `"all(final"`.
    UnclosedParen,
    /// A `)` without its `(`: `"final)"`.
    UnmatchedParen,
    /// A string without its closing quote: `"seq(\"T, A)"`.
    UnclosedString,
    /// A word that is no condition: `"max_turn(3)"`, `"MaxIterations(10)"`.
    UnknownCondition {
        /// The word as written.
        found: String,
        /// The closest known name, if one is close.
        suggestion: Option<&'static str>,
    },
    /// An option the condition does not have: `"loop(perod=3)"`.
    UnknownOption {
        /// The condition's canonical name.
        condition: &'static str,
        /// The option as written.
        found: String,
        /// The closest option, if one is close.
        suggestion: Option<&'static str>,
    },
    /// The same option twice: `"loop(period=3, period=4)"`, `"tool(a, name=b)"`.
    DuplicateOption {
        /// The option's name.
        option: &'static str,
    },
    /// A required argument is missing: `"max_turns"`, `"text()"`, `"not()"`.
    MissingArgument {
        /// The condition's canonical name.
        condition: &'static str,
        /// The argument's name.
        argument: &'static str,
    },
    /// More positional arguments than the condition takes: `"max_turns(3, 4)"`,
    /// `"final(1)"`, `"not(final, cancelled)"`.
    TooManyArguments {
        /// The condition's canonical name.
        condition: &'static str,
        /// How many it takes.
        max: usize,
    },
    /// A positional argument after a `key=value` one: `"tool(when=executed, x)"`.
    PositionalAfterKeyword,
    /// A value of the wrong type: `"max_turns(\"3\")"`, `"max_turns(1.5)"`,
    /// `"loop(over=3)"`, `"tool(args=[1])"`.
    WrongType {
        /// The option's name.
        option: &'static str,
        /// What it takes.
        expected: &'static str,
        /// What was found, in words.
        found: String,
    },
    /// A whole number too large for 64 bits: `"max_turns(99999999999999999999)"`.
    NumberTooLarge {
        /// The option's name.
        option: &'static str,
    },
    /// A threshold that is not a finite number: `"confidence(1e999)"`, or `NaN` in a
    /// condition built in Rust.
    NotFinite {
        /// The option's name.
        option: &'static str,
    },
    /// A duration that cannot be read: an unknown unit (`"timeout(5min)"`), a
    /// fraction (`"timeout(1.5s)"`), too long, or (built in Rust) finer than a
    /// millisecond.
    InvalidDuration {
        /// Why, in words.
        reason: &'static str,
    },
    /// A word that is not one of the values an option takes: `"loop(over=tools)"`,
    /// `"tool(x, done)"`, `"text(\"x\", from=[bot])"`.
    UnknownWord {
        /// The option's name.
        option: &'static str,
        /// The word as written.
        found: String,
        /// The values it takes, in words.
        expected: &'static str,
    },
    /// An empty name: `"tool(\"\")"`, `"custom('')"`, `"text(\"x\", from=[\"@\"])"`.
    EmptyName {
        /// What the name is of.
        option: &'static str,
    },
    /// A number outside the range an option takes: `"loop(period=0)"`,
    /// `"loop(repeats=1)"`.
    OutOfRange {
        /// The option's name.
        option: &'static str,
        /// The number given.
        found: u64,
        /// The smallest allowed.
        min: u64,
        /// The largest allowed.
        max: u64,
    },
    /// `tokens()` without any limit.
    EmptyBudget,
    /// The done sequence inside `seq("...")` does not parse: `"seq(\"T A\")"`. The
    /// span points into the string.
    InvalidSequence(ParseErrorKind),
    /// The regex of `text("...")` is empty, invalid or too big: `"text(\"(\")"`. The
    /// span points into the string.
    InvalidPattern(ParseErrorKind),
    /// The JSON value of `args=` or `config=` does not parse: `"tool(x, args={a})"`.
    InvalidJson {
        /// The option's name.
        option: &'static str,
        /// serde_json's explanation.
        message: String,
    },
    /// A JSON value nested deeper than
    /// [`MAX_VALUE_DEPTH`](crate::stop::MAX_VALUE_DEPTH): `tool(args={"a": [[[...]]]})`
    /// with 33 levels.
    ValueTooDeep {
        /// The option's name (`args`, `config`).
        option: &'static str,
        /// The limit.
        max: usize,
    },
}

impl ExprError {
    pub(crate) fn new(kind: ExprErrorKind, span: Range<usize>, input: &str) -> ExprError {
        SyntaxError::at(kind, span, input, Lead::Parsing("stop expression"))
    }

    /// An error found by `validate` in a condition built in Rust; `input` is its
    /// canonical text.
    pub(crate) fn built(kind: ExprErrorKind, span: Range<usize>, input: &str) -> ExprError {
        SyntaxError::at(kind, span, input, Lead::Invalid("stop condition"))
    }
}

impl ExprErrorKind {
    /// A stable `snake_case` name for the kind, for machine-readable output:
    /// `"unexpected"`, `"unknown_condition"`, `"invalid_pattern"`, ...
    ///
    /// ```
    /// use doneseq::stop::Condition;
    ///
    /// let err = "loop(period=0)".parse::<Condition>().unwrap_err();
    /// assert_eq!(err.kind().name(), "out_of_range");
    /// ```
    #[must_use]
    pub const fn name(&self) -> &'static str {
        match self {
            ExprErrorKind::Empty => "empty",
            ExprErrorKind::TooLong { .. } => "too_long",
            ExprErrorKind::TooDeep { .. } => "too_deep",
            ExprErrorKind::TooManyNodes { .. } => "too_many_nodes",
            ExprErrorKind::Unexpected { .. } => "unexpected",
            ExprErrorKind::TrailingInput { .. } => "trailing_input",
            ExprErrorKind::UnclosedParen => "unclosed_paren",
            ExprErrorKind::UnmatchedParen => "unmatched_paren",
            ExprErrorKind::UnclosedString => "unclosed_string",
            ExprErrorKind::UnknownCondition { .. } => "unknown_condition",
            ExprErrorKind::UnknownOption { .. } => "unknown_option",
            ExprErrorKind::DuplicateOption { .. } => "duplicate_option",
            ExprErrorKind::MissingArgument { .. } => "missing_argument",
            ExprErrorKind::TooManyArguments { .. } => "too_many_arguments",
            ExprErrorKind::PositionalAfterKeyword => "positional_after_keyword",
            ExprErrorKind::WrongType { .. } => "wrong_type",
            ExprErrorKind::NumberTooLarge { .. } => "number_too_large",
            ExprErrorKind::NotFinite { .. } => "not_finite",
            ExprErrorKind::InvalidDuration { .. } => "invalid_duration",
            ExprErrorKind::UnknownWord { .. } => "unknown_word",
            ExprErrorKind::EmptyName { .. } => "empty_name",
            ExprErrorKind::OutOfRange { .. } => "out_of_range",
            ExprErrorKind::EmptyBudget => "empty_budget",
            ExprErrorKind::InvalidSequence(_) => "invalid_sequence",
            ExprErrorKind::InvalidPattern(_) => "invalid_pattern",
            ExprErrorKind::InvalidJson { .. } => "invalid_json",
            ExprErrorKind::ValueTooDeep { .. } => "value_too_deep",
        }
    }

    /// The option the error is about, when it names one (`period` for a loop
    /// period out of range; `limit` for an invalid timeout).
    #[must_use]
    pub const fn option(&self) -> Option<&'static str> {
        match self {
            ExprErrorKind::DuplicateOption { option }
            | ExprErrorKind::WrongType { option, .. }
            | ExprErrorKind::NumberTooLarge { option, .. }
            | ExprErrorKind::NotFinite { option }
            | ExprErrorKind::UnknownWord { option, .. }
            | ExprErrorKind::EmptyName { option }
            | ExprErrorKind::OutOfRange { option, .. }
            | ExprErrorKind::InvalidJson { option, .. }
            | ExprErrorKind::ValueTooDeep { option, .. } => Some(option),
            ExprErrorKind::InvalidDuration { .. } => Some("limit"),
            _ => None,
        }
    }
}

/// What may start a condition; hints key on it.
pub(super) const EXPECTED_CONDITION: &str = "a condition";

impl fmt::Display for ExprErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExprErrorKind::Empty => f.write_str(
                "expected a stop condition, found nothing (e.g. 'tool(submit) | max_turns(10)')",
            ),
            ExprErrorKind::TooLong { len, max } => {
                write!(f, "stop expression is {len} bytes long, the limit is {max}")
            }
            ExprErrorKind::TooDeep { max } => write!(
                f,
                "conditions are nested more than {max} levels deep, the limit is {max} \
                 (each '(', '!', all, any and not is a level)"
            ),
            ExprErrorKind::TooManyNodes { max } => {
                write!(
                    f,
                    "more than {max} conditions in one tree, the limit is {max}"
                )
            }
            ExprErrorKind::Unexpected { expected, found } => {
                write!(f, "expected {expected}, found ")?;
                match found {
                    None => f.write_str("end of input"),
                    Some(c) => write!(f, "'{}'", Visible(*c)),
                }?;
                match (*expected, found) {
                    (EXPECTED_CONDITION, Some(c @ ('&' | '|'))) => {
                        write!(f, " (write '{c}' once between two conditions)")
                    }
                    (EXPECTED_CONDITION, Some('"' | '\'')) => f.write_str(
                        " (strings go inside a condition's parentheses, e.g. seq(\"T, A\"))",
                    ),
                    (EXPECTED_CONDITION, Some(c)) if c.is_ascii_digit() => f.write_str(
                        " (numbers go inside a condition's parentheses, e.g. max_turns(10))",
                    ),
                    _ => Ok(()),
                }
            }
            ExprErrorKind::TrailingInput { found } => {
                write!(
                    f,
                    "expected '&', '|' or the end of the expression, found '{}'",
                    Visible(*found)
                )?;
                if found.is_alphanumeric() || *found == '_' || *found == '(' || *found == '!' {
                    f.write_str(" (join conditions with '&' or '|')")?;
                }
                Ok(())
            }
            ExprErrorKind::UnclosedParen => {
                f.write_str("unclosed '(' (expected ')' before the end of input)")
            }
            ExprErrorKind::UnmatchedParen => f.write_str("unmatched ')' (no '(' is open here)"),
            ExprErrorKind::UnclosedString => {
                f.write_str("unclosed string (expected its closing quote before the end of input)")
            }
            ExprErrorKind::UnknownCondition { found, suggestion } => {
                f.write_str("unknown condition '")?;
                found
                    .chars()
                    .try_for_each(|c| write!(f, "{}", Visible(c)))?;
                f.write_str("' (")?;
                if let Some(s) = suggestion {
                    write!(f, "did you mean '{s}'? ")?;
                }
                write!(f, "known conditions: {})", super::known_conditions())
            }
            ExprErrorKind::UnknownOption {
                condition,
                found,
                suggestion,
            } => {
                let options = super::builtin(condition).map_or(&[][..], |b| b.params);
                if options.is_empty() {
                    return write!(f, "'{condition}' takes no options, found '{found}'");
                }
                write!(f, "'{condition}' has no option '{found}' (")?;
                if let Some(s) = suggestion {
                    write!(f, "did you mean '{s}'? ")?;
                }
                f.write_str("its options: ")?;
                for (n, p) in options.iter().enumerate() {
                    if n > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(p.key)?;
                }
                f.write_str(")")
            }
            ExprErrorKind::DuplicateOption { option } => {
                write!(f, "option '{option}' is given twice")
            }
            ExprErrorKind::MissingArgument {
                condition,
                argument,
            } => {
                write!(f, "'{condition}' needs its argument '{argument}'")?;
                write_usage(f, condition)
            }
            ExprErrorKind::TooManyArguments { condition, max } => {
                let options = super::builtin(condition).is_some_and(|b| !b.params.is_empty());
                match max {
                    0 if options => write!(f, "'{condition}' takes only key=value options"),
                    0 => write!(f, "'{condition}' takes no arguments"),
                    1 => write!(f, "'{condition}' takes 1 positional argument, found more"),
                    n => write!(
                        f,
                        "'{condition}' takes {n} positional arguments, found more"
                    ),
                }?;
                write_usage(f, condition)
            }
            ExprErrorKind::PositionalAfterKeyword => f.write_str(
                "expected 'key=value' after a 'key=value' argument, found a positional one \
                 (positional arguments come first)",
            ),
            ExprErrorKind::WrongType {
                option,
                expected,
                found,
            } => write!(f, "expected {expected} for '{option}', found {found}"),
            ExprErrorKind::NumberTooLarge { option } => write!(
                f,
                "number for '{option}' is too large, the limit is {}",
                u64::MAX
            ),
            ExprErrorKind::NotFinite { option } => {
                write!(f, "expected a finite number for '{option}'")
            }
            ExprErrorKind::InvalidDuration { reason } => write!(f, "invalid duration: {reason}"),
            ExprErrorKind::UnknownWord {
                option,
                found,
                expected,
            } => {
                f.write_str("unknown value '")?;
                found
                    .chars()
                    .try_for_each(|c| write!(f, "{}", Visible(c)))?;
                write!(f, "' for '{option}' (expected {expected})")
            }
            ExprErrorKind::EmptyName { option } => {
                write!(f, "expected a name for '{option}', found an empty one")
            }
            ExprErrorKind::OutOfRange {
                option,
                found,
                min,
                max,
            } => write!(
                f,
                "'{option}' must be between {min} and {max}, found {found}"
            ),
            ExprErrorKind::EmptyBudget => f.write_str(
                "'tokens' needs at least one limit: total, input or output (e.g. tokens(100000))",
            ),
            ExprErrorKind::InvalidSequence(kind) => write!(f, "in seq(...): {kind}"),
            ExprErrorKind::InvalidPattern(kind) => write_pattern_error(f, kind),
            ExprErrorKind::InvalidJson { option, message } => {
                write!(f, "invalid JSON for '{option}': {message}")
            }
            ExprErrorKind::ValueTooDeep { option, max } => write!(
                f,
                "the value of '{option}' is nested more than {max} levels deep, the limit is \
                 {max} (each array and object is a level)"
            ),
        }
    }
}

/// ` (usage: max_turns(10))`, for the condition of this canonical name.
fn write_usage(f: &mut fmt::Formatter<'_>, condition: &str) -> fmt::Result {
    match super::builtin(condition) {
        Some(b) => write!(f, " (usage: {})", b.usage),
        None => Ok(()),
    }
}

/// The regex errors of `text(...)`, worded for a text pattern rather than the DSL's
/// content brackets.
fn write_pattern_error(f: &mut fmt::Formatter<'_>, kind: &ParseErrorKind) -> fmt::Result {
    match kind {
        ParseErrorKind::EmptyBracket => {
            f.write_str("expected a regex in text(...), found an empty string")
        }
        ParseErrorKind::InvalidRegex { message } => write!(f, "invalid text regex: {message}"),
        ParseErrorKind::RegexTooBig { limit } => write!(
            f,
            "text regex compiles to more than {limit} bytes (simplify it)"
        ),
        ParseErrorKind::PatternTooLong { len, max } => {
            write!(f, "text regex is {len} bytes long, the limit is {max}")
        }
        ParseErrorKind::RegexCost { max } => write!(
            f,
            "text regex's classes would take the expression (with the configuration it \
             is in) past {max} code points of case folding, the limit (for any character, write (?s:.), not [\\s\\S])"
        ),
        ParseErrorKind::RegexMemory { max } => write!(
            f,
            "text regex would take the regexes of the expression (with the configuration \
             it is in) past {max} bytes compiled, the limit (simplify them)"
        ),
        other => write!(f, "invalid text regex: {other}"),
    }
}
