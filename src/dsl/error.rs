//! Parse errors of the DSL: what can go wrong, in the crate's one error scaffold
//! ([`SyntaxError`]).

use std::fmt;
use std::ops::Range;

use crate::text::{Lead, RegexError, SyntaxError, Visible};

/// An error from parsing DSL text: what went wrong ([`kind`](ParseError::kind)),
/// where ([`span`](ParseError::span), in bytes), and the text it happened in.
///
/// `Display` is one line, fit for logs and serde messages. The alternate form
/// (`{:#}`) draws the input with a caret under the span:
///
/// ```
/// use doneseq::DoneSequence;
///
/// let err = DoneSequence::parse("T A").unwrap_err();
/// assert_eq!(err.span(), 2..3);
/// assert_eq!(
///     err.to_string(),
///     r#"error parsing done sequence "T A" at 2..3: expected ',' or '&' after an event, found 'A' (separate events with ',')"#,
/// );
/// assert_eq!(
///     format!("{err:#}"),
///     "error: expected ',' or '&' after an event, found 'A' (separate events with ',')\n  |\n1 | T A\n  |   ^\n",
/// );
/// ```
pub type ParseError = SyntaxError<ParseErrorKind>;

/// What the input of a [`ParseError`] was meant to be, for its message.
pub(crate) struct Subject;

impl Subject {
    pub(crate) const SEQUENCE: &'static str = "done sequence";
    pub(crate) const EVENT: &'static str = "event";
    pub(crate) const ELEMENT: &'static str = "element";
    pub(crate) const PATTERN: &'static str = "content pattern";
    pub(crate) const TOOL_NAME: &'static str = "tool name";
    /// The regex of a stop condition's `text(...)`.
    pub(crate) const TEXT_PATTERN: &'static str = "text pattern";
}

/// What went wrong while parsing. Each variant names an input that triggers it.
///
/// Messages are lowercase, say what was expected and what was found, and add a hint
/// in parentheses where one helps.
///
/// ```
/// use doneseq::{DoneSequence, ParseErrorKind};
///
/// let err = DoneSequence::parse("T, t").unwrap_err();
/// assert_eq!(err.kind(), &ParseErrorKind::LowercaseLetter { found: 't' });
/// assert_eq!(err.kind().name(), "lowercase_letter");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// No event at all: `""`, `"  "`, `","`, `",,,"`, `"name:"`.
    Empty,
    /// The text is longer than [`MAX_DSL_LEN`](crate::dsl::MAX_DSL_LEN) bytes.
    TooLong {
        /// The length of the input in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The sequence's canonical text (what `Display` prints) would be longer than
    /// [`MAX_DSL_LEN`](crate::dsl::MAX_DSL_LEN) bytes, so it could not be parsed back:
    /// escapes and spacing lengthen a text near the limit (`T[[]...]` prints as
    /// `T[\[\]...]`).
    CanonicalTooLong {
        /// The length of the canonical text in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// More than [`MAX_ELEMENTS`](crate::dsl::MAX_ELEMENTS) elements after expanding
    /// repeats: `"T{300}"`.
    TooManyElements {
        /// The limit.
        max: usize,
    },
    /// More than [`MAX_LITERALS`](crate::dsl::MAX_LITERALS) literals joined by `&` in
    /// one element.
    TooManyLiterals {
        /// The limit.
        max: usize,
    },
    /// A character that cannot come here: `"T A"`, `"T;A"`, `"(T"`, `"T&"`,
    /// `"T{x}"`, `"T [calc]"`.
    Unexpected {
        /// What could have come here.
        expected: &'static str,
        /// What came instead; `None` is the end of the input.
        found: Option<char>,
    },
    /// A word that is no event: `"X"`, `"TA"`, `"TOOLS"`, `"É"`, `"Ｔ"`.
    UnknownEvent {
        /// The word as written.
        found: String,
    },
    /// A lowercase event letter: `"t"`. Letters are case-sensitive (as in Langroid);
    /// words are not (`"tool"` is fine).
    LowercaseLetter {
        /// The letter as written.
        found: char,
    },
    /// A content event without its pattern: `"C"`, `"CONTENT"`. Langroid accepts a
    /// bare `C` that can never match.
    MissingPattern,
    /// Brackets after an event that takes none: `"A[x]"`, `"L[x]"`.
    BracketNotAllowed {
        /// The event's letter.
        event: char,
    },
    /// Nothing between the brackets: `"T[]"`, `"C[]"`, `"T[ ]"`.
    EmptyBracket,
    /// A `[` without its `]`: `"T[calc"`, `"C[a, L"`.
    UnclosedBracket,
    /// A `]` after an element is complete: `"T[calc]]"`. Langroid would make it part of
    /// the name.
    StrayBracket,
    /// A `"` without its closing `"`: `"\"my seq: T"`.
    UnclosedQuote,
    /// A content pattern the regex crate rejects: `"C[(]"`, `"C[*]"`,
    /// `"C[(?<=a)b]"`. The span points into the bracket.
    InvalidRegex {
        /// The regex parser's explanation.
        message: String,
    },
    /// A content pattern that compiles to more than
    /// [`MAX_REGEX_SIZE`](crate::MAX_REGEX_SIZE) bytes: `"C[(?:\w{1000}){1000}]"`.
    RegexTooBig {
        /// The limit in bytes.
        limit: usize,
    },
    /// A regex that would take the regexes compiled by one parse (a list of sequences,
    /// a stop expression) past [`MAX_REGEX_MEMORY`](crate::MAX_REGEX_MEMORY) bytes of
    /// heap together.
    RegexMemory {
        /// The limit in bytes.
        max: usize,
    },
    /// A regex whose character classes would take the regexes compiled by one parse
    /// past [`MAX_REGEX_FOLD_WORK`](crate::MAX_REGEX_FOLD_WORK) code points of case
    /// folding: `C[[\s\S][\s\S]...]` with 61 classes.
    RegexCost {
        /// The limit in code points.
        max: u64,
    },
    /// A content regex longer than [`MAX_PATTERN_LEN`](crate::MAX_PATTERN_LEN) bytes.
    PatternTooLong {
        /// The pattern's length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// More than [`MAX_PATTERNS`](crate::dsl::MAX_PATTERNS) content regexes in one
    /// sequence (each `C[...]` written counts; a repeat `{n}` does not).
    TooManyPatterns {
        /// The limit.
        max: usize,
    },
    /// An empty quoted name or responder: `"\"\": T"`, `"A@\"\""`.
    EmptyName,
    /// A repeat count of zero: `"T{0}"`.
    ZeroRepeat,
    /// An element no message can satisfy: `"L & A"` (a message is one kind),
    /// `"T & !T"`, `"!_"`.
    Unsatisfiable {
        /// Why, in words.
        reason: String,
    },
}

impl ParseError {
    pub(crate) fn new(kind: ParseErrorKind, span: Range<usize>, input: &str) -> ParseError {
        SyntaxError::at(kind, span, input, Lead::Parsing(Subject::SEQUENCE))
    }
}

impl From<RegexError> for ParseErrorKind {
    fn from(error: RegexError) -> ParseErrorKind {
        match error {
            RegexError::Empty => ParseErrorKind::EmptyBracket,
            RegexError::TooLong { len, max } => ParseErrorKind::PatternTooLong { len, max },
            RegexError::Invalid { message } => ParseErrorKind::InvalidRegex { message },
            RegexError::TooBig { limit } => ParseErrorKind::RegexTooBig { limit },
            RegexError::Memory { max } => ParseErrorKind::RegexMemory { max },
            RegexError::Cost { max } => ParseErrorKind::RegexCost { max },
            RegexError::StrayBracket => ParseErrorKind::StrayBracket,
            RegexError::UnclosedBracket => ParseErrorKind::UnclosedBracket,
        }
    }
}

impl ParseErrorKind {
    /// A stable `snake_case` name for the kind, for machine-readable output (the CLI's
    /// `--json`): `"unexpected"`, `"unknown_event"`, `"invalid_regex"`, ...
    ///
    /// ```
    /// use doneseq::DoneSequence;
    ///
    /// assert_eq!(DoneSequence::parse("T[calc").unwrap_err().kind().name(), "unclosed_bracket");
    /// ```
    #[must_use]
    pub const fn name(&self) -> &'static str {
        match self {
            ParseErrorKind::Empty => "empty",
            ParseErrorKind::TooLong { .. } => "too_long",
            ParseErrorKind::CanonicalTooLong { .. } => "canonical_too_long",
            ParseErrorKind::TooManyElements { .. } => "too_many_elements",
            ParseErrorKind::TooManyLiterals { .. } => "too_many_literals",
            ParseErrorKind::Unexpected { .. } => "unexpected",
            ParseErrorKind::UnknownEvent { .. } => "unknown_event",
            ParseErrorKind::LowercaseLetter { .. } => "lowercase_letter",
            ParseErrorKind::MissingPattern => "missing_pattern",
            ParseErrorKind::BracketNotAllowed { .. } => "bracket_not_allowed",
            ParseErrorKind::EmptyBracket => "empty_bracket",
            ParseErrorKind::UnclosedBracket => "unclosed_bracket",
            ParseErrorKind::StrayBracket => "stray_bracket",
            ParseErrorKind::UnclosedQuote => "unclosed_quote",
            ParseErrorKind::InvalidRegex { .. } => "invalid_regex",
            ParseErrorKind::RegexTooBig { .. } => "regex_too_big",
            ParseErrorKind::RegexMemory { .. } => "regex_memory",
            ParseErrorKind::RegexCost { .. } => "regex_cost",
            ParseErrorKind::ZeroRepeat => "zero_repeat",
            ParseErrorKind::PatternTooLong { .. } => "pattern_too_long",
            ParseErrorKind::TooManyPatterns { .. } => "too_many_patterns",
            ParseErrorKind::EmptyName => "empty_name",
            ParseErrorKind::Unsatisfiable { .. } => "unsatisfiable",
        }
    }
}

/// The list of every event, for "unknown event" messages.
const VALID_EVENTS: &str = "T, T[name], A, L, U, N, C[regex], F, E, _ \
     or the words TOOL, AGENT, LLM, USER, NO_RESPONSE, CONTENT[regex], FINAL, ERROR, ANY";

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseErrorKind::Empty => {
                f.write_str("expected at least one event, found none (e.g. 'T, A')")
            }
            ParseErrorKind::TooLong { len, max } => {
                write!(
                    f,
                    "done sequence text is {len} bytes long, the limit is {max}"
                )
            }
            ParseErrorKind::CanonicalTooLong { len, max } => {
                write!(
                    f,
                    "done sequence's canonical text would be {len} bytes long, the limit is {max}"
                )
            }
            ParseErrorKind::TooManyElements { max } => {
                write!(
                    f,
                    "too many elements, the limit is {max} (counting each repeat)"
                )
            }
            ParseErrorKind::TooManyLiterals { max } => {
                write!(f, "too many events joined with '&', the limit is {max}")
            }
            ParseErrorKind::Unexpected { expected, found } => {
                write!(f, "expected {expected}, found ")?;
                match found {
                    None => f.write_str("end of input"),
                    Some(c) => write!(f, "'{}'", Visible(*c)),
                }?;
                match (*expected, found) {
                    (_, Some('\\')) => {
                        f.write_str(" (a backslash escapes only inside brackets or quotes)")
                    }
                    (EXPECTED_SEPARATOR, Some(c)) if c.is_alphanumeric() || *c == '_' => {
                        f.write_str(" (separate events with ',')")
                    }
                    (EXPECTED_SEPARATOR, Some('[')) => {
                        f.write_str(" (no space is allowed before '[')")
                    }
                    (EXPECTED_AFTER_BRACKET, _) => {
                        f.write_str(" (if the ']' before it belongs inside, write it as '\\]')")
                    }
                    (EXPECTED_SEPARATOR, Some('&')) => {
                        f.write_str(" (a repeat '{n}' ends its element)")
                    }
                    _ => Ok(()),
                }
            }
            ParseErrorKind::UnknownEvent { found } => {
                f.write_str("unknown event '")?;
                found
                    .chars()
                    .try_for_each(|c| write!(f, "{}", Visible(c)))?;
                write!(f, "' (valid events: {VALID_EVENTS})")
            }
            ParseErrorKind::LowercaseLetter { found } => write!(
                f,
                "unknown event '{found}' (event letters are case-sensitive: did you mean '{}'?)",
                found.to_ascii_uppercase()
            ),
            ParseErrorKind::MissingPattern => f.write_str(
                "expected '[' after 'C', found no pattern (write the regex as C[quit|bye]; \
                 a bare 'C' can never match)",
            ),
            ParseErrorKind::BracketNotAllowed { event } => write!(
                f,
                "'{event}' takes no brackets (only T[name] and C[regex] do)"
            ),
            ParseErrorKind::EmptyBracket => {
                f.write_str("expected a name or pattern inside the brackets, found nothing")
            }
            ParseErrorKind::UnclosedBracket => {
                f.write_str("unclosed '[' (expected ']' before the end of input)")
            }
            ParseErrorKind::StrayBracket => {
                f.write_str("unexpected ']' (inside brackets, write it as '\\]')")
            }
            ParseErrorKind::UnclosedQuote => {
                f.write_str("unclosed '\"' (expected '\"' before the end of input)")
            }
            ParseErrorKind::InvalidRegex { message } => {
                write!(f, "invalid content regex: {message}")
            }
            ParseErrorKind::RegexTooBig { limit } => {
                write!(
                    f,
                    "content regex compiles to more than {limit} bytes (simplify it)"
                )
            }
            ParseErrorKind::RegexMemory { max } => write!(
                f,
                "this regex would take the regexes of the configuration past {max} bytes \
                 compiled, the limit (simplify them, or write a repeated one the same way \
                 so that it is shared)"
            ),
            ParseErrorKind::RegexCost { max } => write!(
                f,
                "this regex's character classes would take the configuration past {max} \
                 code points of case folding, the limit (a class over everything, such as \
                 [\\s\\S], is folded code point by code point: write (?s:.) instead)"
            ),
            ParseErrorKind::PatternTooLong { len, max } => {
                write!(f, "content regex is {len} bytes long, the limit is {max}")
            }
            ParseErrorKind::TooManyPatterns { max } => {
                write!(
                    f,
                    "too many content regexes in one sequence, the limit is {max}"
                )
            }
            ParseErrorKind::EmptyName => {
                f.write_str("expected a name, found '\"\"' (leave the name out instead)")
            }
            ParseErrorKind::ZeroRepeat => {
                f.write_str("expected a repeat count of at least 1, found 0")
            }
            ParseErrorKind::Unsatisfiable { reason } => {
                write!(f, "no message can satisfy this element: {reason}")
            }
        }
    }
}

/// What may follow an element; hints key on it.
pub(crate) const EXPECTED_SEPARATOR: &str = "',' or '&' after an event";
/// What may follow an element that ends in `]`; hints key on it.
pub(crate) const EXPECTED_AFTER_BRACKET: &str = "',' or '&' after a bracket";
/// What may start an element; hints key on it.
pub(crate) const EXPECTED_EVENT: &str = "an event";
