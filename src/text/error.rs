//! The one error scaffold of every text the crate parses (done sequences, stop
//! expressions, regexes): a kind, the byte span it concerns and the text, printed on
//! one line or with a caret under the span.

use std::fmt::{self, Write};
use std::ops::Range;

/// An error in a text the crate parsed: what went wrong ([`kind`](SyntaxError::kind)),
/// where ([`span`](SyntaxError::span), in bytes) and the text it happened in
/// ([`input`](SyntaxError::input)). The DSL's [`ParseError`](crate::ParseError) and the
/// stop language's [`ExprError`](crate::stop::ExprError) are this type with their own
/// kind of error.
///
/// `Display` is one line, fit for logs and serde messages (`error parsing done
/// sequence "T A" at 2..3: ...`). The alternate form (`{:#}`) draws the line of the
/// input holding the span with a caret under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError<K> {
    kind: K,
    span: Range<usize>,
    input: Box<str>,
    lead: Lead,
}

/// How the one-line form of an error starts: what the text was meant to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lead {
    /// `error parsing {what}`: a text that did not parse.
    Parsing(&'static str),
    /// `invalid {what}`: a value built in code, shown as its canonical text.
    Invalid(&'static str),
}

impl fmt::Display for Lead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lead::Parsing(what) => write!(f, "error parsing {what}"),
            Lead::Invalid(what) => write!(f, "invalid {what}"),
        }
    }
}

impl<K> SyntaxError<K> {
    pub(crate) fn at(kind: K, span: Range<usize>, input: &str, lead: Lead) -> SyntaxError<K> {
        SyntaxError {
            kind,
            span,
            input: input.into(),
            lead,
        }
    }

    /// The same error, about a text that was meant to be `what`.
    pub(crate) fn about(mut self, what: &'static str) -> SyntaxError<K> {
        self.lead = Lead::Parsing(what);
        self
    }

    /// What went wrong.
    #[must_use]
    pub fn kind(&self) -> &K {
        &self.kind
    }

    /// The byte range of [`input`](SyntaxError::input) that the error is about. It may
    /// be empty (a position) and always lies on character boundaries within the input.
    #[must_use]
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// The text that was parsed (for a value built in code: its canonical text).
    #[must_use]
    pub fn input(&self) -> &str {
        &self.input
    }
}

impl<K: fmt::Debug + fmt::Display> std::error::Error for SyntaxError<K> {}

impl<K: fmt::Display> fmt::Display for SyntaxError<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            return render_caret(f, &self.input, &self.span, &self.kind);
        }
        write_one_line(f, &self.lead, &self.input, &self.span, &self.kind)
    }
}

/// How much of a long input the one-line form shows on each side of the span.
const CONTEXT_CHARS: usize = 40;

/// The one-line form of an error: `{lead} "{input}" at {span}: {message}`, with the
/// input escaped (so that it stays on one line) and cut around the span (so that a
/// 64 KiB input does not end up in a log line). Shared by every error type of the
/// crate that points into a text.
fn write_one_line(
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
fn render_caret(
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
