//! Parse errors: a kind, the byte span it concerns, and the input it came from.

use std::fmt::{self, Write};
use std::ops::Range;

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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    kind: ParseErrorKind,
    span: Range<usize>,
    input: Box<str>,
    subject: Subject,
}

/// What the input of a [`ParseError`] was meant to be, for its message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Subject {
    Sequence,
    Event,
    Element,
    Pattern,
    ToolName,
    /// The regex of a stop condition's `text(...)`.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    TextPattern,
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Subject::Sequence => "done sequence",
            Subject::Event => "event",
            Subject::Element => "element",
            Subject::Pattern => "content pattern",
            Subject::ToolName => "tool name",
            Subject::TextPattern => "text pattern",
        })
    }
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
    /// [`MAX_REGEX_SIZE`](crate::MAX_REGEX_SIZE) bytes: `"C[\w{1000}{1000}]"`.
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
        ParseError {
            kind,
            span,
            input: input.into(),
            subject: Subject::Sequence,
        }
    }

    /// The same error, about an input that was meant to be `subject`.
    pub(crate) fn about(mut self, subject: Subject) -> ParseError {
        self.subject = subject;
        self
    }

    /// What went wrong.
    #[must_use]
    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }

    /// The byte range of `input()` that the error is about. It may be empty (a
    /// position) and always lies on character boundaries within the input.
    #[must_use]
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// The text that was parsed.
    #[must_use]
    pub fn input(&self) -> &str {
        &self.input
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

impl std::error::Error for ParseError {}

/// How much of a long input the one-line form shows on each side of the span.
const CONTEXT_CHARS: usize = 40;

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            return render_caret(f, &self.input, &self.span, &self.kind);
        }
        let lead = format_args!("error parsing {}", self.subject);
        write_one_line(f, &lead, &self.input, &self.span, &self.kind)
    }
}

/// The one-line form of an error: `{lead} "{input}" at {span}: {message}`, with the
/// input escaped (so that it stays on one line) and cut around the span (so that a
/// 64 KiB input does not end up in a log line). Shared by every error type of the
/// crate that points into a text.
pub(crate) fn write_one_line(
    f: &mut fmt::Formatter<'_>,
    lead: &dyn fmt::Display,
    input: &str,
    span: &Range<usize>,
    message: &dyn fmt::Display,
) -> fmt::Result {
    let Range { start, end } = *span;
    write!(f, "{lead} \"")?;
    let from = floor_boundary(input, start.saturating_sub(CONTEXT_CHARS));
    // A long span (the excess of a too-long input) is cut too.
    let to = ceil_char_boundary(input, end.min(start + CONTEXT_CHARS) + CONTEXT_CHARS);
    if from > 0 {
        f.write_str("...")?;
    }
    for c in input[from..to].chars() {
        if c == '"' {
            f.write_str("\\\"")?;
        } else if c == '\'' {
            f.write_char('\'')?;
        } else {
            write!(f, "{}", c.escape_debug())?;
        }
    }
    if to < input.len() {
        f.write_str("...")?;
    }
    write!(f, "\" at {start}..{end}: {message}")
}

/// The caret form: the message, the line of the input holding the span, and `^` under
/// the span (one `^` for an empty span). A long line is cut around the span as the
/// one-line form cuts the input (`...` marks a cut), so a 64 KiB line is not drawn
/// whole and the caret's column stays small.
pub(crate) fn render_caret(
    f: &mut fmt::Formatter<'_>,
    input: &str,
    span: &Range<usize>,
    message: &dyn fmt::Display,
) -> fmt::Result {
    let start = floor_boundary(input, span.start);
    let line_start = input[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = input[start..].find('\n').map_or(input.len(), |i| start + i);
    let line_no = input[..start].matches('\n').count() + 1;
    let span_end = ceil_char_boundary(input, span.end.clamp(start, line_end));
    let from = floor_boundary(input, start.saturating_sub(CONTEXT_CHARS)).max(line_start);
    let to = ceil_char_boundary(input, span_end.min(start + CONTEXT_CHARS) + CONTEXT_CHARS)
        .min(line_end);
    let (cut_before, cut_after) = (from > line_start, to < line_end);
    let width = |text: &str| text.chars().map(display_width).sum::<usize>();
    let column = if cut_before { 3 } else { 0 } + width(&input[from..start]);
    let carets = width(&input[start..span_end.min(to)]).max(1);
    // Spaces by repetition, not `{:column$}`: `format!` panics past a width of 65,535.
    let gutter = " ".repeat(line_no.to_string().len());
    writeln!(f, "error: {message}")?;
    writeln!(f, "{gutter} |")?;
    write!(f, "{line_no} | ")?;
    if cut_before {
        f.write_str("...")?;
    }
    for c in input[from..to].chars() {
        write_visible(f, c)?;
    }
    if cut_after {
        f.write_str("...")?;
    }
    writeln!(f)?;
    writeln!(f, "{gutter} | {}{}", " ".repeat(column), "^".repeat(carets))
}

/// Characters drawn in the caret form as their escape (tabs, control and invisible
/// characters) so that the caret stays aligned with what is shown.
fn is_drawn_escaped(c: char) -> bool {
    c.is_control() || matches!(c, '\u{200b}'..='\u{200f}' | '\u{feff}')
}

fn display_width(c: char) -> usize {
    if is_drawn_escaped(c) {
        c.escape_debug().count()
    } else {
        1
    }
}

fn write_visible(f: &mut fmt::Formatter<'_>, c: char) -> fmt::Result {
    write!(f, "{}", Visible(c))
}

/// A character as messages show it: itself, or its escape when it would be invisible.
pub(crate) struct Visible(pub(crate) char);

impl fmt::Display for Visible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if is_drawn_escaped(self.0) {
            write!(f, "{}", self.0.escape_debug())
        } else {
            write!(f, "{}", self.0)
        }
    }
}

pub(crate) fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
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
