//! The DSL parser (nom 8). The grammar it implements is `grammar.md`.
//!
//! Every parser is a private `fn(&str) -> PResult<T>`. Errors carry the slice where
//! they start; [`to_parse_error`] turns that into a byte span with `Offset`, so no
//! parser tracks positions by hand. Once a prefix commits (an event letter, a `[`, a
//! `"`) errors are `Failure`s: nothing backtracks past a committed construct, so the
//! error reported is the one at the real problem, not at the start of the element.

use nom::bytes::complete::take_while1;
use nom::character::complete::{char, digit1};
use nom::combinator::opt;
use nom::error::ErrorKind;
use nom::{IResult, Offset, Parser};
use smallvec::SmallVec;

use super::content;
use super::error::{EXPECTED_AFTER_BRACKET, EXPECTED_EVENT, EXPECTED_SEPARATOR, Subject};
use super::{AgentEvent, BaseKind, EventKind, ToolName};
use super::{
    DoneSequence, Element, Literal, MAX_DSL_LEN, MAX_ELEMENTS, MAX_LITERALS, MAX_PATTERNS,
    ParseError, ParseErrorKind,
};
use crate::text::{is_name_char, is_space, regex_body_end};

/// A parse failure: what, and the slice of the input where it starts and how long it
/// is.
#[derive(Debug)]
pub(super) struct PErr<'a> {
    kind: ParseErrorKind,
    at: &'a str,
    len: usize,
}

type PResult<'a, T> = IResult<&'a str, T, PErr<'a>>;

impl<'a> nom::error::ParseError<&'a str> for PErr<'a> {
    // nom's own errors only arise from the primitives used below (`char`, `digit1`,
    // `take_while1`), always where a specific token was expected; callers replace them
    // with a precise kind via `expect`. This is the fallback if one ever escapes.
    fn from_error_kind(input: &'a str, _kind: ErrorKind) -> PErr<'a> {
        unexpected(input, EXPECTED_EVENT)
    }

    fn append(_input: &'a str, _kind: ErrorKind, other: PErr<'a>) -> PErr<'a> {
        other
    }
}

fn unexpected<'a>(at: &'a str, expected: &'static str) -> PErr<'a> {
    let found = at.chars().next();
    PErr {
        kind: ParseErrorKind::Unexpected { expected, found },
        at,
        len: found.map_or(0, char::len_utf8),
    }
}

fn failure<T>(kind: ParseErrorKind, at: &str, len: usize) -> PResult<'_, T> {
    Err(nom::Err::Failure(PErr { kind, at, len }))
}

/// Runs `parser`; if it fails without committing, fails instead with "expected
/// `expected`, found ..." at the current position, committed.
fn expect<'a, T>(
    expected: &'static str,
    mut parser: impl Parser<&'a str, Output = T, Error = PErr<'a>>,
) -> impl FnMut(&'a str) -> PResult<'a, T> {
    move |i| match parser.parse(i) {
        Err(nom::Err::Error(_)) => Err(nom::Err::Failure(unexpected(i, expected))),
        other => other,
    }
}

fn ws(i: &str) -> &str {
    i.trim_start_matches(is_space)
}

/// Characters of an event code: `T`, `TOOL`, `NO_RESPONSE`, `_`. Unicode letters are
/// included so that `É` or `Ｔ` is reported as one unknown word, not as a stray
/// character.
fn is_code_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn to_parse_error(input: &str, err: nom::Err<PErr<'_>>) -> ParseError {
    match err {
        nom::Err::Error(e) | nom::Err::Failure(e) => {
            let start = input.offset(e.at);
            ParseError::new(e.kind, start..start + e.len, input)
        }
        // Only streaming parsers return `Incomplete`; all of ours are complete.
        nom::Err::Incomplete(_) => {
            ParseError::new(ParseErrorKind::Empty, input.len()..input.len(), input)
        }
    }
}

fn check_len(input: &str) -> Result<(), ParseError> {
    if input.len() > MAX_DSL_LEN {
        let kind = ParseErrorKind::TooLong {
            len: input.len(),
            max: MAX_DSL_LEN,
        };
        let start = crate::text::floor_boundary(input, MAX_DSL_LEN);
        return Err(ParseError::new(kind, start..input.len(), input));
    }
    Ok(())
}

/// `sequence := ws (name ws ':')? items`
pub(super) fn sequence(input: &str) -> Result<DoneSequence, ParseError> {
    check_len(input)?;
    let run = |i| -> PResult<'_, DoneSequence> {
        let (i, name) = opt(name_prefix).parse(ws(i))?;
        let (i, elements) = items(i)?;
        Ok((i, DoneSequence { name, elements }))
    };
    let seq = run(input)
        .map(|(_, seq)| seq)
        .map_err(|e| to_parse_error(input, e))?;
    // The canonical text is at most about twice the input (escaped brackets, `", "`,
    // `" & "`; tests/robustness checks 4x on every parsed input), so only a long input
    // can print past the limit, which would break `parse(x.to_string()) == x`.
    if input.len() > MAX_DSL_LEN / 4 {
        check_canonical(&seq).map_err(|kind| ParseError::new(kind, 0..input.len(), input))?;
    }
    Ok(seq)
}

/// Refuses a sequence whose canonical text would not parse for its length.
pub(crate) fn check_canonical(seq: &DoneSequence) -> Result<(), ParseErrorKind> {
    let len = super::display::canonical_len(seq);
    if len > MAX_DSL_LEN {
        return Err(ParseErrorKind::CanonicalTooLong {
            len,
            max: MAX_DSL_LEN,
        });
    }
    Ok(())
}

/// One event with an optional responder: the `FromStr` of [`AgentEvent`].
pub(super) fn event(input: &str) -> Result<AgentEvent, ParseError> {
    check_len(input).map_err(|e| e.about(Subject::EVENT))?;
    let run = |i| -> PResult<'_, AgentEvent> {
        let start = ws(i);
        if start.is_empty() {
            return failure(ParseErrorKind::Empty, start, 0);
        }
        let (rest, event) = atom(start)?;
        let rest = ws(rest);
        match rest.chars().next() {
            None => Ok((rest, event)),
            Some(_) => Err(nom::Err::Failure(unexpected(
                rest,
                "end of input after an event",
            ))),
        }
    };
    run(input)
        .map(|(_, event)| event)
        .map_err(|e| to_parse_error(input, e).about(Subject::EVENT))
}

/// `name ws ':'`, backtracking (an `Error`) when there is no `:`: then the word was
/// the first event.
fn name_prefix(i: &str) -> PResult<'_, String> {
    let (rest, name) = name(i)?;
    let rest = ws(rest);
    let (rest, _) = char(':').parse(rest)?;
    Ok((ws(rest), name))
}

/// `name := name-char+ | quoted`
fn name(i: &str) -> PResult<'_, String> {
    if i.starts_with('"') {
        let (rest, name) = quoted(i)?;
        // An empty name would mean "no name" in the object form and in `with_name`; in
        // text it is a mistake.
        if name.is_empty() {
            return failure(ParseErrorKind::EmptyName, i, i.offset(rest));
        }
        return Ok((rest, name));
    }
    let (rest, name) = take_while1(is_name_char).parse(i)?;
    Ok((rest, name.to_owned()))
}

/// `quoted := '"' ( [^"\\] | '\\' any )* '"'`. Committed once the `"` is seen.
fn quoted(i: &str) -> PResult<'_, String> {
    let mut out = String::new();
    let mut chars = i.char_indices().skip(1);
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Ok((&i[at + 1..], out)),
            '\\' => match chars.next() {
                Some((_, escaped)) => out.push(escaped),
                None => break,
            },
            c => out.push(c),
        }
    }
    failure(ParseErrorKind::UnclosedQuote, i, 1)
}

/// `items := item? (ws ',' ws item?)*`. Empty items are skipped, as Langroid does
/// (`T,,A`, a trailing comma), and `X{n}` is expanded here.
fn items(mut i: &str) -> PResult<'_, Vec<Element>> {
    let start = i;
    let mut elements = Vec::new();
    let mut patterns = 0;
    loop {
        i = ws(i);
        match i.chars().next() {
            None => break,
            Some(',') => {
                i = &i[1..];
                continue;
            }
            Some(_) => {}
        }
        let item_start = i;
        let (rest, (element, count)) = item(i)?;
        if elements.len() + count > MAX_ELEMENTS {
            let len = i.offset(rest);
            return failure(
                ParseErrorKind::TooManyElements { max: MAX_ELEMENTS },
                i,
                len,
            );
        }
        patterns += element
            .literals()
            .iter()
            .filter(|l| is_content(l.event()))
            .count();
        if patterns > MAX_PATTERNS {
            let len = i.offset(rest);
            return failure(
                ParseErrorKind::TooManyPatterns { max: MAX_PATTERNS },
                i,
                len,
            );
        }
        elements.extend(std::iter::repeat_n(element, count));
        i = ws(rest);
        match i.chars().next() {
            None => break,
            Some(',') => i = &i[1..],
            Some(']') => return failure(ParseErrorKind::StrayBracket, i, 1),
            Some(_) => {
                // After `C[x]y]` the likely mistake is the first `]`, not a missing comma.
                let expected = if item_start[..item_start.offset(rest)].ends_with(']') {
                    EXPECTED_AFTER_BRACKET
                } else {
                    EXPECTED_SEPARATOR
                };
                return Err(nom::Err::Failure(unexpected(i, expected)));
            }
        }
    }
    if elements.is_empty() {
        return failure(ParseErrorKind::Empty, start, start.len());
    }
    Ok((i, elements))
}

/// `item := element ('{' digits '}')?`: the repeat applies to the whole element.
fn item(i: &str) -> PResult<'_, (Element, usize)> {
    let (rest, element) = element(i)?;
    if !rest.starts_with('{') {
        return Ok((rest, (element, 1)));
    }
    let (after, digits) = expect("a repeat count", digit1).parse(&rest[1..])?;
    let (after, _) = expect("'}' after the repeat count", char('}')).parse(after)?;
    let span_len = rest.offset(after);
    // Any count past the limit is the same error; parsing saturates so that
    // `T{99999999999999999999}` is not an overflow.
    let count = digits.bytes().fold(0usize, |n, d| {
        n.saturating_mul(10).saturating_add(usize::from(d - b'0'))
    });
    match count {
        0 => failure(ParseErrorKind::ZeroRepeat, rest, span_len),
        n if n > MAX_ELEMENTS => failure(
            ParseErrorKind::TooManyElements { max: MAX_ELEMENTS },
            rest,
            span_len,
        ),
        n => Ok((after, (element, n))),
    }
}

/// `element := literal (ws '&' ws literal)*`
fn element(i: &str) -> PResult<'_, Element> {
    let start = i;
    let (mut rest, first) = literal(i)?;
    let mut literals: SmallVec<[Literal; 1]> = SmallVec::new();
    literals.push(first);
    loop {
        let after_ws = ws(rest);
        let Some(next) = after_ws.strip_prefix('&') else {
            break;
        };
        let next = ws(next);
        if literals.len() == MAX_LITERALS {
            return failure(
                ParseErrorKind::TooManyLiterals { max: MAX_LITERALS },
                after_ws,
                1,
            );
        }
        let (after, lit) = literal(next)?;
        literals.push(lit);
        rest = after;
    }
    if let Some(kind) = unsatisfiable(&literals) {
        return failure(kind, start, start.offset(rest));
    }
    Ok((rest, Element { literals }))
}

/// `literal := ('!' ws)? atom`
fn literal(i: &str) -> PResult<'_, Literal> {
    match i.strip_prefix('!') {
        Some(rest) => {
            let (rest, event) = atom(ws(rest))?;
            Ok((rest, Literal::not(event)))
        }
        None => {
            let (rest, event) = atom(i)?;
            Ok((rest, Literal::new(event)))
        }
    }
}

/// What an event code names, before its bracket and responder.
enum Code {
    Tool,
    Content,
    Plain(EventKind),
}

/// `atom := code ('[' bracket ']')? ('@' name)?`
fn atom(i: &str) -> PResult<'_, AgentEvent> {
    let (rest, word) = expect(EXPECTED_EVENT, take_while1(is_code_char)).parse(i)?;
    let code = code(word).ok_or_else(|| {
        let mut letters = word.chars();
        let kind = match (letters.next(), letters.next()) {
            (Some(c @ ('t' | 'a' | 'l' | 'u' | 'n' | 'c' | 'f' | 'e')), None) => {
                ParseErrorKind::LowercaseLetter { found: c }
            }
            _ => ParseErrorKind::UnknownEvent {
                found: word.to_owned(),
            },
        };
        nom::Err::Failure(PErr {
            kind,
            at: word,
            len: word.len(),
        })
    })?;
    let (rest, kind) = match (code, rest.starts_with('[')) {
        (Code::Tool, false) => (rest, EventKind::Tool),
        (Code::Tool, true) => {
            let (after, name) = tool_bracket(rest)?;
            (after, EventKind::SpecificTool(ToolName::from_parsed(name)))
        }
        (Code::Content, true) => {
            let (after, pattern) = content_bracket(rest)?;
            (after, EventKind::Content(pattern))
        }
        (Code::Content, false) => return failure(ParseErrorKind::MissingPattern, word, word.len()),
        (Code::Plain(kind), true) => {
            let event = kind.letter();
            let len = bracket_len(rest);
            return failure(ParseErrorKind::BracketNotAllowed { event }, rest, len);
        }
        (Code::Plain(kind), false) => (rest, kind),
    };
    let event = AgentEvent::new(kind);
    match rest.strip_prefix('@') {
        None => Ok((rest, event)),
        Some(after) => {
            let (after, responder) = expect("a responder name after '@'", name).parse(after)?;
            Ok((after, event.with_responder(responder)))
        }
    }
}

/// Letters are case-sensitive, words are not (Langroid: `T` but not `t`, `tool` and
/// `ToOl`). Words compare after Unicode upper-casing, as Python's `upper()` does, so
/// `uſer` is `USER` there and here.
fn code(word: &str) -> Option<Code> {
    let plain = |kind| Some(Code::Plain(kind));
    match word {
        "T" => return Some(Code::Tool),
        "C" => return Some(Code::Content),
        "A" => return plain(EventKind::Agent),
        "L" => return plain(EventKind::Llm),
        "U" => return plain(EventKind::User),
        "N" => return plain(EventKind::NoResponse),
        "F" => return plain(EventKind::Final),
        "E" => return plain(EventKind::Error),
        "_" => return plain(EventKind::Any),
        _ if word.chars().nth(1).is_none() => return None,
        _ => {}
    }
    match word.to_uppercase().as_str() {
        "TOOL" => Some(Code::Tool),
        "CONTENT" => Some(Code::Content),
        "AGENT" => plain(EventKind::Agent),
        "LLM" => plain(EventKind::Llm),
        "USER" => plain(EventKind::User),
        "NO_RESPONSE" => plain(EventKind::NoResponse),
        "FINAL" => plain(EventKind::Final),
        "ERROR" => plain(EventKind::Error),
        "ANY" => plain(EventKind::Any),
        _ => None,
    }
}

/// The length of a bracket for error spans: up to its `]`, or the rest of the input.
fn bracket_len(i: &str) -> usize {
    i.find(']').map_or(i.len(), |end| end + 1)
}

/// `T[...]`: a tool name. `\x` is a literal `x` (so `\]`, `\[`, `\\` and an escaped
/// space are possible); unescaped brackets must balance, as in Langroid where `[`
/// opens a nested class. Unescaped whitespace around the name is trimmed.
fn tool_bracket(i: &str) -> PResult<'_, String> {
    // (char, escaped) pairs, so that trimming can tell `\ ` from ` `.
    let mut chars: Vec<(char, bool)> = Vec::new();
    let mut depth = 0usize;
    let mut iter = i.char_indices().skip(1);
    let end = loop {
        let Some((at, c)) = iter.next() else {
            return failure(ParseErrorKind::UnclosedBracket, i, 1);
        };
        match c {
            '\\' => match iter.next() {
                Some((_, escaped)) => chars.push((escaped, true)),
                None => return failure(ParseErrorKind::UnclosedBracket, i, 1),
            },
            '[' => {
                depth += 1;
                chars.push((c, false));
            }
            ']' if depth == 0 => break at,
            ']' => {
                depth -= 1;
                chars.push((c, false));
            }
            c => chars.push((c, false)),
        }
    };
    let unescaped_space = |&(c, escaped): &(char, bool)| !escaped && is_space(c);
    let first = chars.iter().position(|p| !unescaped_space(p));
    let last = chars.iter().rposition(|p| !unescaped_space(p));
    match (first, last) {
        (Some(first), Some(last)) => {
            let name = chars[first..=last].iter().map(|&(c, _)| c).collect();
            Ok((&i[end + 1..], name))
        }
        _ => failure(ParseErrorKind::EmptyBracket, i, end + 1),
    }
}

/// `C[...]`: a regex, kept verbatim (escapes included: they are the regex's own) and
/// compiled here so that an invalid one is an error pointing into the bracket.
fn content_bracket(i: &str) -> PResult<'_, content::ContentPattern> {
    let body = &i[1..];
    let Some(end) = regex_body_end(body) else {
        return failure(ParseErrorKind::UnclosedBracket, i, 1);
    };
    let source = &body[..end];
    match content::compile(source) {
        Ok(pattern) => Ok((&body[end + 1..], pattern)),
        Err((kind, span)) => {
            let len = span.end.saturating_sub(span.start);
            // An empty pattern is reported on the whole `[]`.
            if matches!(kind, ParseErrorKind::EmptyBracket) {
                return failure(kind, i, 2);
            }
            failure(kind, &source[span.start..], len)
        }
    }
}

fn is_content(event: &AgentEvent) -> bool {
    matches!(event.kind(), EventKind::Content(_))
}

/// Why no message can satisfy all of `literals`, if none can.
///
/// Sound under the monitor's classification: a message has exactly one base
/// kind (a tool call, an LLM text, an agent response, a user response or no response)
/// and one responder. Content, answer and error predicates are independent, so
/// nothing is concluded from them but `X & !X`.
pub(super) fn unsatisfiable(literals: &[Literal]) -> Option<ParseErrorKind> {
    let reason = |r: String| Some(ParseErrorKind::Unsatisfiable { reason: r });
    let (positive, negative): (Vec<&Literal>, Vec<&Literal>) =
        literals.iter().partition(|l| !l.is_negated());
    for (n, p) in positive.iter().enumerate() {
        for q in &positive[n + 1..] {
            let (a, b) = (p.event().kind().base(), q.event().kind().base());
            if let (Some(a), Some(b)) = (a, b)
                && a != b
            {
                return reason(format!(
                    "'{p}' ({a}) and '{q}' ({b}) exclude each other: \
                         a message is only one kind"
                ));
            }
            if let (Some(r), Some(s)) = (p.event().responder(), q.event().responder())
                && r != s
            {
                return reason(format!(
                    "'{p}' and '{q}' name different responders: a message has one"
                ));
            }
        }
        for q in &negative {
            if implies(p.event(), q.event(), &positive) {
                return reason(format!("'{p}' and '{q}' contradict each other"));
            }
        }
    }
    // `!_` rules out every message (with a positive literal, `implies` said so above).
    let any = AgentEvent::new(EventKind::Any);
    if let Some(q) = negative.iter().find(|q| *q.event() == any) {
        return reason(format!("'{q}' matches no message"));
    }
    // With every base kind negated (from any responder), no kind is left.
    let negated_base = |base| {
        negative
            .iter()
            .any(|q| q.event().responder().is_none() && bare_base(q.event()) == Some(base))
    };
    let all = [
        BaseKind::Tool,
        BaseKind::Llm,
        BaseKind::Agent,
        BaseKind::User,
        BaseKind::NoResponse,
    ];
    if all.into_iter().all(negated_base) {
        return reason("every kind of message is negated".to_owned());
    }
    None
}

/// Whether every message satisfying `p` (and the other positive literals) satisfies
/// `q`: same kind or a more specific one (`T[x]` implies `T`; everything implies `_`),
/// and `q`'s responder, if any, is one that the positive literals fix.
fn implies(p: &AgentEvent, q: &AgentEvent, positive: &[&Literal]) -> bool {
    let kind_implied = p.kind() == q.kind()
        || *q.kind() == EventKind::Any
        || (*q.kind() == EventKind::Tool && matches!(p.kind(), EventKind::SpecificTool(_)));
    let responder_implied = match q.responder() {
        None => true,
        Some(r) => positive.iter().any(|l| l.event().responder() == Some(r)),
    };
    kind_implied && responder_implied
}

/// The base kind an event stands for *entirely*: `T` is every tool call, but `T[x]` is
/// only some, so only the former, negated, rules out the kind.
fn bare_base(event: &AgentEvent) -> Option<BaseKind> {
    match event.kind() {
        EventKind::SpecificTool(_) => None,
        kind => kind.base(),
    }
}
