//! The stop-expression parser (nom 8). The grammar it implements is the "Stop
//! expressions" section of `grammar.md`.
//!
//! As in the DSL parser, every error carries the slice where it starts, and
//! [`to_expr_error`] turns it into a byte span with `Offset`. Nothing backtracks past
//! a committed token, so errors are reported where the problem is. Nesting (`(`, `!`,
//! `all(`, `any(`, `not(`) is counted on the way down and refused past
//! [`MAX_CONDITION_DEPTH`] before recursing, so no input can overflow the stack; a
//! run of `!` is read in a loop, not by recursion.

use std::borrow::Cow;
use std::time::Duration;

use nom::bytes::complete::{take_while, take_while1};
use nom::character::complete::{char, digit1};
use nom::combinator::{opt, recognize};
use nom::error::ErrorKind;
use nom::{IResult, Offset, Parser};

use super::error::EXPECTED_CONDITION;
use super::{
    Builtin, ConditionId, ExprError, ExprErrorKind, LOOP_OVER, PHASES, Param, ParamKind, builtin,
    closest, value_fault,
};
use crate::dsl::ParseError;
use crate::stop::args::{Arg, Args, bind};
use crate::stop::{
    Condition, MAX_CONDITION_DEPTH, MAX_CONDITION_NODES, MAX_EXPRESSION_LEN, Speaker, TextPattern,
};
use crate::text::{floor_boundary, is_name_char, is_space};
use crate::{DoneSequence, Role};

/// A parse failure: what, and the slice of the input where it starts and how long it
/// is.
#[derive(Debug)]
pub(super) struct PErr<'a> {
    kind: ExprErrorKind,
    at: &'a str,
    len: usize,
}

type PResult<'a, T> = IResult<&'a str, T, PErr<'a>>;

impl<'a> nom::error::ParseError<&'a str> for PErr<'a> {
    // nom's own errors only come from the primitives below, always where a specific
    // token was expected; callers replace them with a precise kind. This is the
    // fallback if one ever escapes.
    fn from_error_kind(input: &'a str, _kind: ErrorKind) -> PErr<'a> {
        unexpected(input, EXPECTED_CONDITION)
    }

    fn append(_input: &'a str, _kind: ErrorKind, other: PErr<'a>) -> PErr<'a> {
        other
    }
}

fn unexpected<'a>(at: &'a str, expected: &'static str) -> PErr<'a> {
    let found = at.chars().next();
    PErr {
        kind: ExprErrorKind::Unexpected { expected, found },
        at,
        len: found.map_or(0, char::len_utf8),
    }
}

fn fail<T>(kind: ExprErrorKind, at: &str, len: usize) -> PResult<'_, T> {
    Err(nom::Err::Failure(PErr { kind, at, len }))
}

fn fail_unexpected<'a, T>(at: &'a str, expected: &'static str) -> PResult<'a, T> {
    Err(nom::Err::Failure(unexpected(at, expected)))
}

/// After an item of a parenthesized list opened at `open`: the next item (past a
/// `,`) or the closing `)`, left for the caller; else what was `expected`, or an
/// unclosed `(` at the end of the input.
fn next_item<'a>(
    rest: &'a str,
    open: &'a str,
    expected: &'static str,
) -> Result<&'a str, nom::Err<PErr<'a>>> {
    let rest = ws(rest);
    if let Some(after) = rest.strip_prefix(',') {
        Ok(ws(after))
    } else if rest.starts_with(')') {
        Ok(rest)
    } else if rest.is_empty() {
        let kind = ExprErrorKind::UnclosedParen;
        Err(nom::Err::Failure(PErr {
            kind,
            at: open,
            len: 1,
        }))
    } else {
        Err(nom::Err::Failure(unexpected(rest, expected)))
    }
}

fn ws(i: &str) -> &str {
    i.trim_start_matches(is_space)
}

fn to_expr_error(input: &str, err: nom::Err<PErr<'_>>) -> ExprError {
    match err {
        nom::Err::Error(e) | nom::Err::Failure(e) => {
            let start = input.offset(e.at);
            ExprError::new(e.kind, start..start + e.len, input)
        }
        // Only streaming parsers return `Incomplete`; all of ours are complete.
        nom::Err::Incomplete(_) => {
            ExprError::new(ExprErrorKind::Empty, input.len()..input.len(), input)
        }
    }
}

/// `expression := ws or ws`, the whole input.
pub(super) fn expression(input: &str) -> Result<Condition, ExprError> {
    if input.len() > MAX_EXPRESSION_LEN {
        let start = floor_boundary(input, MAX_EXPRESSION_LEN);
        let kind = ExprErrorKind::TooLong {
            len: input.len(),
            max: MAX_EXPRESSION_LEN,
        };
        return Err(ExprError::new(kind, start..input.len(), input));
    }
    let start = ws(input);
    if start.is_empty() {
        return Err(ExprError::new(ExprErrorKind::Empty, 0..input.len(), input));
    }
    let mut parser = ExprParser { nodes: 0 };
    let mut run = |i| -> PResult<'_, Node> {
        let (rest, node) = parser.or(i, 0)?;
        let rest = ws(rest);
        match rest.chars().next() {
            None => Ok((rest, node)),
            Some(')') => fail(ExprErrorKind::UnmatchedParen, rest, 1),
            Some(found) => fail(
                ExprErrorKind::TrailingInput { found },
                rest,
                found.len_utf8(),
            ),
        }
    };
    run(start)
        .map(|(_, node)| node.condition)
        .map_err(|e| to_expr_error(input, e))
}

/// A parsed condition and the height of its tree (0 for a built-in).
struct Node {
    condition: Condition,
    height: usize,
}

struct ExprParser {
    /// Conditions built so far, against [`MAX_CONDITION_NODES`].
    nodes: usize,
}

impl ExprParser {
    /// Counts a new condition spanning `from` up to `to`.
    fn count<'a>(&mut self, from: &'a str, to: &'a str) -> Result<(), nom::Err<PErr<'a>>> {
        self.nodes += 1;
        if self.nodes > MAX_CONDITION_NODES {
            let kind = ExprErrorKind::TooManyNodes {
                max: MAX_CONDITION_NODES,
            };
            return Err(nom::Err::Failure(PErr {
                kind,
                at: from,
                len: from.offset(to),
            }));
        }
        Ok(())
    }

    fn leaf<'a>(&mut self, from: &'a str, to: &'a str, condition: Condition) -> PResult<'a, Node> {
        self.count(from, to)?;
        Ok((
            to,
            Node {
                condition,
                height: 0,
            },
        ))
    }

    /// A combinator over `children`, spanning `from` up to `to`.
    fn combine<'a>(
        &mut self,
        from: &'a str,
        to: &'a str,
        children: Vec<Node>,
        make: fn(Vec<Condition>) -> Condition,
    ) -> PResult<'a, Node> {
        let tallest = children.iter().map(|c| c.height).max().unwrap_or(0);
        let children = children.into_iter().map(|c| c.condition).collect();
        self.node(from, to, tallest, || make(children))
    }

    /// `!child`, spanning `from` up to `to`.
    fn not<'a>(&mut self, from: &'a str, to: &'a str, child: Node) -> PResult<'a, Node> {
        self.node(from, to, child.height, || {
            Condition::Not(Box::new(child.condition))
        })
    }

    /// A combinator whose tallest child has height `tallest`.
    fn node<'a>(
        &mut self,
        from: &'a str,
        to: &'a str,
        tallest: usize,
        make: impl FnOnce() -> Condition,
    ) -> PResult<'a, Node> {
        let height = tallest + 1;
        if height > MAX_CONDITION_DEPTH {
            let kind = ExprErrorKind::TooDeep {
                max: MAX_CONDITION_DEPTH,
            };
            return fail(kind, from, from.offset(to));
        }
        self.count(from, to)?;
        Ok((
            to,
            Node {
                condition: make(),
                height,
            },
        ))
    }

    /// `or := and (ws '|' ws and)*`
    fn or<'a>(&mut self, i: &'a str, level: usize) -> PResult<'a, Node> {
        self.chain(i, level, '|', Self::and, Condition::Any)
    }

    /// `and := unary (ws '&' ws unary)*`
    fn and<'a>(&mut self, i: &'a str, level: usize) -> PResult<'a, Node> {
        self.chain(i, level, '&', Self::unary, Condition::All)
    }

    /// One operand, or several joined by `op` into one n-ary node.
    fn chain<'a>(
        &mut self,
        i: &'a str,
        level: usize,
        op: char,
        mut operand: impl FnMut(&mut Self, &'a str, usize) -> PResult<'a, Node>,
        make: fn(Vec<Condition>) -> Condition,
    ) -> PResult<'a, Node> {
        let (mut rest, first) = operand(self, i, level)?;
        let mut children = vec![first];
        while let Some(after) = ws(rest).strip_prefix(op) {
            let (after, next) = operand(self, ws(after), level)?;
            children.push(next);
            rest = after;
        }
        if children.len() == 1
            && let Some(only) = children.pop()
        {
            return Ok((rest, only));
        }
        self.combine(i, rest, children, make)
    }

    /// `unary := '!' ws unary | primary`, read as a loop.
    fn unary<'a>(&mut self, i: &'a str, level: usize) -> PResult<'a, Node> {
        let mut bangs: Vec<&'a str> = Vec::new();
        let mut at = i;
        while at.starts_with('!') {
            if level + bangs.len() >= MAX_CONDITION_DEPTH {
                let kind = ExprErrorKind::TooDeep {
                    max: MAX_CONDITION_DEPTH,
                };
                return fail(kind, at, 1);
            }
            bangs.push(at);
            at = ws(&at[1..]);
        }
        let (rest, mut node) = self.primary(at, level + bangs.len())?;
        for bang in bangs.into_iter().rev() {
            node = self.not(bang, rest, node)?.1;
        }
        Ok((rest, node))
    }

    /// `primary := '(' ws or ws ')' | call`
    fn primary<'a>(&mut self, i: &'a str, level: usize) -> PResult<'a, Node> {
        let Some(inner) = i.strip_prefix('(') else {
            return self.call(i, level);
        };
        if level >= MAX_CONDITION_DEPTH {
            let kind = ExprErrorKind::TooDeep {
                max: MAX_CONDITION_DEPTH,
            };
            return fail(kind, i, 1);
        }
        let (rest, node) = self.or(ws(inner), level + 1)?;
        let rest = ws(rest);
        match rest.strip_prefix(')') {
            Some(after) => Ok((after, node)),
            None if rest.is_empty() => fail(ExprErrorKind::UnclosedParen, i, 1),
            None => fail_unexpected(rest, "'&', '|' or ')'"),
        }
    }

    /// `call := name [ws '(' args ')']`
    fn call<'a>(&mut self, i: &'a str, level: usize) -> PResult<'a, Node> {
        let Ok((rest, name)) = word(i) else {
            return fail_unexpected(i, EXPECTED_CONDITION);
        };
        let Some(b) = builtin(name) else {
            let names = super::BUILTINS
                .iter()
                .flat_map(|b| std::iter::once(b.name).chain(b.aliases.iter().copied()));
            let kind = ExprErrorKind::UnknownCondition {
                found: name.to_owned(),
                suggestion: closest(name, names),
            };
            return fail(kind, i, name.len());
        };
        let after = ws(rest);
        match b.id {
            ConditionId::All | ConditionId::Any | ConditionId::Not => {
                if !after.starts_with('(') {
                    return fail_unexpected(after, "'(' after the combinator's name");
                }
                let open = after;
                if level >= MAX_CONDITION_DEPTH {
                    let kind = ExprErrorKind::TooDeep {
                        max: MAX_CONDITION_DEPTH,
                    };
                    return fail(kind, i, i.offset(open) + 1);
                }
                let (rest, mut children) = self.conditions(open, level + 1)?;
                match b.id {
                    ConditionId::All => self.combine(i, rest, children, Condition::All),
                    ConditionId::Any => self.combine(i, rest, children, Condition::Any),
                    _ if children.len() > 1 => {
                        let kind = ExprErrorKind::TooManyArguments {
                            condition: "not",
                            max: 1,
                        };
                        fail(kind, i, i.offset(rest))
                    }
                    _ => match children.pop() {
                        Some(child) => self.not(i, rest, child),
                        None => {
                            let kind = ExprErrorKind::MissingArgument {
                                condition: "not",
                                argument: "condition",
                            };
                            fail(kind, i, i.offset(rest))
                        }
                    },
                }
            }
            _ => {
                let (rest, values) = if after.starts_with('(') {
                    Self::args(b, after)?
                } else {
                    (rest, Values::default())
                };
                let condition = build(b, &values, i, rest)?;
                self.leaf(i, rest, condition)
            }
        }
    }

    /// The conditions of `all(...)`, `any(...)`, `not(...)`: `'(' [or (',' or)* [',']] ')'`.
    fn conditions<'a>(&mut self, open: &'a str, level: usize) -> PResult<'a, Vec<Node>> {
        let mut i = ws(&open[1..]);
        let mut children = Vec::new();
        loop {
            if let Some(after) = i.strip_prefix(')') {
                return Ok((after, children));
            }
            let (rest, child) = self.or(i, level)?;
            children.push(child);
            i = next_item(rest, open, "'&', '|', ',' or ')' after a condition")?;
        }
    }

    /// `args := '(' [arg (',' arg)* [',']] ')'`, `arg := [key ws '=' ws] value`.
    /// Each value is read as its option's kind.
    fn args<'a>(b: &'static Builtin, open: &'a str) -> PResult<'a, Values<'a>> {
        let mut values = Values::default();
        let mut i = ws(&open[1..]);
        let mut positional = 0;
        let mut keyword = false;
        loop {
            if let Some(after) = i.strip_prefix(')') {
                return Ok((after, values));
            }
            if i.is_empty() {
                return fail(ExprErrorKind::UnclosedParen, open, 1);
            }
            let key = match word(i) {
                Ok((rest, key)) if ws(rest).starts_with('=') => Some((key, ws(&ws(rest)[1..]))),
                _ => None,
            };
            let (index, value_at) = match key {
                Some((key, value_at)) => {
                    keyword = true;
                    let Some(index) = b.params.iter().position(|p| p.key == key) else {
                        let kind = ExprErrorKind::UnknownOption {
                            condition: b.name,
                            found: key.to_owned(),
                            suggestion: closest(key, b.params.iter().map(|p| p.key)),
                        };
                        return fail(kind, i, key.len());
                    };
                    if values.get(index).is_some() {
                        let kind = ExprErrorKind::DuplicateOption {
                            option: b.params[index].key,
                        };
                        return fail(kind, i, key.len());
                    }
                    (index, value_at)
                }
                None => {
                    if keyword {
                        return fail(ExprErrorKind::PositionalAfterKeyword, i, value_len(i));
                    }
                    let Some(index) = b
                        .params
                        .iter()
                        .enumerate()
                        .filter(|(_, p)| p.positional)
                        .nth(positional)
                        .map(|(n, _)| n)
                    else {
                        let max = b.params.iter().filter(|p| p.positional).count();
                        let kind = ExprErrorKind::TooManyArguments {
                            condition: b.name,
                            max,
                        };
                        return fail(kind, i, value_len(i));
                    };
                    positional += 1;
                    (index, i)
                }
            };
            let param = &b.params[index];
            let (rest, value) = value(param, value_at)?;
            values.set(index, value, value_at, rest);
            i = next_item(rest, open, "',' or ')' after an argument")?;
        }
    }
}

/// The values given to a call, each with where it was written.
#[derive(Default)]
struct Values<'a> {
    args: Args<'static>,
    sites: Vec<Option<(&'a str, usize)>>,
}

impl<'a> Values<'a> {
    fn get(&self, index: usize) -> Option<&Arg<'static>> {
        self.args.get(index)
    }

    fn set(&mut self, index: usize, value: Arg<'static>, at: &'a str, rest: &'a str) {
        if self.sites.len() <= index {
            self.sites.resize(index + 1, None);
        }
        self.sites[index] = Some((at, at.offset(rest)));
        self.args.set(index, value);
    }

    /// Where the value of option `index` was written, and its length.
    fn site(&self, index: usize) -> Option<(&'a str, usize)> {
        self.sites.get(index).copied().flatten()
    }
}

/// Binds the values of a call of `b` (the one binder, shared with serde); an error
/// points at the option at fault, or at the whole call (`from..to`).
fn build<'a>(
    b: &'static Builtin,
    values: &Values<'a>,
    from: &'a str,
    to: &'a str,
) -> Result<Condition, nom::Err<PErr<'a>>> {
    bind(b, &values.args).map_err(|e| {
        let (at, len) = e
            .option
            .and_then(|i| values.site(i))
            .unwrap_or((from, from.offset(to)));
        nom::Err::Failure(PErr {
            kind: e.kind,
            at,
            len,
        })
    })
}

// ---- values ------------------------------------------------------------------------

/// A bare word: a letter, `_` or `@` first, then name characters (alphanumerics, `_`,
/// `-`, `.`).
fn word(i: &str) -> PResult<'_, &str> {
    let first = |c: char| c.is_alphabetic() || c == '_';
    let start = i.strip_prefix('@').unwrap_or(i);
    if !start.chars().next().is_some_and(first) {
        return Err(nom::Err::Error(unexpected(i, "a word")));
    }
    let skip = i.len() - start.len();
    let (rest, _) = take_while1(is_name_char).parse(start)?;
    Ok((rest, &i[..skip + start.offset(rest)]))
}

/// A number as written: `-?digits(.digits)?([eE][+-]?digits)?`, and the letters right
/// after it (a duration's unit).
struct Number<'a> {
    text: &'a str,
    unit: &'a str,
}

fn number(i: &str) -> PResult<'_, Number<'_>> {
    let exponent = (
        nom::branch::alt((char('e'), char('E'))),
        opt(nom::branch::alt((char('+'), char('-')))),
        digit1,
    );
    let (rest, text) = recognize((
        opt(char('-')),
        digit1,
        opt((char('.'), digit1)),
        opt(exponent),
    ))
    .parse(i)?;
    let (rest, unit) = take_while(|c: char| c.is_alphabetic()).parse(rest)?;
    Ok((rest, Number { text, unit }))
}

/// The duration a number with its unit stands for; no unit is seconds.
fn duration(n: &Number<'_>) -> Result<Duration, &'static str> {
    if n.text.starts_with('-') {
        return Err("a duration cannot be negative");
    }
    if n.text.contains(['.', 'e', 'E']) {
        return Err("write a whole number with a unit (e.g. 1500ms, not 1.5s)");
    }
    let scale: u64 = match n.unit {
        "" | "s" => 1000,
        "ms" => 1,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err("unknown unit (use ms, s, m or h)"),
    };
    match n
        .text
        .parse::<u64>()
        .ok()
        .and_then(|v| v.checked_mul(scale))
    {
        Some(ms) => Ok(Duration::from_millis(ms)),
        None => Err("too long (the limit is u64::MAX milliseconds)"),
    }
}

/// A duration written alone, as in the language: `300s`, `5m`, `1500ms`, `300`.
#[cfg_attr(not(feature = "serde"), allow(dead_code))]
pub(crate) fn parse_duration(text: &str) -> Result<Duration, &'static str> {
    match number(text) {
        Ok(("", n)) => duration(&n),
        _ => Err("expected a whole number and a unit (e.g. 300s, 5m, 1h, 1500ms)"),
    }
}

/// A string literal, decoded, with the decoded offsets where an escape (`\"`, `\'`,
/// `\\`) was read, to map offsets in the decoded text back to the input.
struct Str<'a> {
    value: String,
    escapes: Vec<usize>,
    /// The input from the first character inside the quotes.
    body: &'a str,
}

impl Str<'_> {
    /// The input offset (from `body`) of decoded offset `at`.
    fn source_offset(&self, at: usize) -> usize {
        at + self.escapes.iter().filter(|&&e| e < at).count()
    }
}

/// `'"' ... '"'` or `'\'' ... '\''`: `\` before the quote or a backslash escapes it;
/// any other backslash is kept as written.
fn string(i: &str) -> PResult<'_, Str<'_>> {
    let Some(quote @ ('"' | '\'')) = i.chars().next() else {
        return Err(nom::Err::Error(unexpected(i, "a string")));
    };
    let body = &i[1..];
    let mut value = String::new();
    let mut escapes = Vec::new();
    let mut chars = body.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c == quote {
            return Ok((
                &body[at + 1..],
                Str {
                    value,
                    escapes,
                    body,
                },
            ));
        }
        if c == '\\'
            && let Some(&(_, next)) = chars.peek()
            && (next == quote || next == '\\')
        {
            escapes.push(value.len());
            value.push(next);
            chars.next();
            continue;
        }
        value.push(c);
    }
    fail(ExprErrorKind::UnclosedString, i, 1)
}

/// A string for `param`: anything else is a wrong type; an unclosed one is unclosed.
fn string_for<'a>(param: &Param, expected: &'static str, i: &'a str) -> PResult<'a, Str<'a>> {
    match string(i) {
        Err(nom::Err::Error(_)) => wrong_type(param, expected, i),
        other => other,
    }
}

/// How long the value at `i` is, for error spans: up to the next `,` or `)` outside
/// brackets and strings.
fn value_len(i: &str) -> usize {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (at, c) in i.char_indices() {
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
            ')' | ']' | '}' if depth == 0 => return trim_end(i, at),
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => return trim_end(i, at),
            _ => {}
        }
    }
    trim_end(i, i.len())
}

fn trim_end(i: &str, end: usize) -> usize {
    i[..end].trim_end_matches(is_space).len()
}

/// What the value at `i` looks like, in words, for "wrong type" messages.
fn describe(i: &str) -> String {
    let len = value_len(i).max(i.chars().next().map_or(0, char::len_utf8));
    let shown: String = i[..len].chars().take(24).collect();
    let ellipsis = if shown.len() < len { "..." } else { "" };
    match i.chars().next() {
        None => "nothing".to_owned(),
        Some('"' | '\'') => format!("the string {shown}{ellipsis}"),
        Some('[') => "a list".to_owned(),
        Some('{') => "a JSON object".to_owned(),
        Some(c) if (c.is_ascii_digit() || c == '-') && shown.ends_with(char::is_alphabetic) => {
            format!("the duration {shown}{ellipsis}")
        }
        Some(c) if c.is_ascii_digit() || c == '-' => format!("the number {shown}{ellipsis}"),
        Some(_) => format!("'{shown}{ellipsis}'"),
    }
}

fn wrong_type<'a, T>(param: &Param, expected: &'static str, at: &'a str) -> PResult<'a, T> {
    Err(wrong_type_err(param, expected, at))
}

fn wrong_type_err<'a>(param: &Param, expected: &'static str, at: &'a str) -> nom::Err<PErr<'a>> {
    let kind = ExprErrorKind::WrongType {
        option: param.key,
        expected,
        found: describe(at),
    };
    let len = value_len(at).max(at.chars().next().map_or(0, char::len_utf8));
    nom::Err::Failure(PErr { kind, at, len })
}

/// The value of `param` at `i`, read as its kind.
fn value<'a>(param: &Param, i: &'a str) -> PResult<'a, Arg<'static>> {
    match param.kind {
        ParamKind::Sequence => {
            let (rest, s) =
                string_for(param, "a string holding a done sequence (e.g. \"T, A\")", i)?;
            match DoneSequence::parse(&s.value) {
                Ok(seq) => Ok((rest, Arg::Sequence(Cow::Owned(seq)))),
                Err(e) => inner_error(&s, &e, ExprErrorKind::InvalidSequence),
            }
        }
        ParamKind::Pattern => {
            let (rest, s) = string_for(param, "a string holding a regex (e.g. \"\\bDONE\\b\")", i)?;
            match TextPattern::new(&s.value) {
                Ok(pattern) => Ok((rest, Arg::Pattern(Cow::Owned(pattern)))),
                Err(e) => inner_error(&s, &e, ExprErrorKind::InvalidPattern),
            }
        }
        ParamKind::Count => {
            let expected = "a whole number";
            let Ok((rest, n)) = number(i) else {
                return wrong_type(param, expected, i);
            };
            if !n.unit.is_empty() || n.text.contains(['.', 'e', 'E', '-']) {
                return wrong_type(param, expected, i);
            }
            match n.text.parse::<u64>() {
                Ok(c) => Ok((rest, Arg::Count(c))),
                Err(_) => fail(
                    ExprErrorKind::NumberTooLarge { option: param.key },
                    i,
                    i.offset(rest),
                ),
            }
        }
        ParamKind::Float => {
            let Ok((rest, n)) = number(i) else {
                return wrong_type(param, "a number", i);
            };
            if !n.unit.is_empty() {
                return wrong_type(param, "a number", i);
            }
            match n.text.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok((rest, Arg::Float(x))),
                _ => fail(
                    ExprErrorKind::NotFinite { option: param.key },
                    i,
                    i.offset(rest),
                ),
            }
        }
        ParamKind::Duration => {
            let Ok((rest, n)) = number(i) else {
                return wrong_type(param, "a duration (e.g. 300s, 5m, 1h, 1500ms)", i);
            };
            match duration(&n) {
                Ok(d) => Ok((rest, Arg::Duration(d))),
                Err(reason) => fail(ExprErrorKind::InvalidDuration { reason }, i, i.offset(rest)),
            }
        }
        ParamKind::Bool => match word(i) {
            Ok((rest, "true")) => Ok((rest, Arg::Bool(true))),
            Ok((rest, "false")) => Ok((rest, Arg::Bool(false))),
            _ => wrong_type(param, "true or false", i),
        },
        ParamKind::Name => {
            let (rest, name, len) = name_at(param, i)?;
            if name.is_empty() {
                return fail(ExprErrorKind::EmptyName { option: param.key }, i, len);
            }
            Ok((rest, Arg::Name(Cow::Owned(name))))
        }
        ParamKind::Word(words) => {
            let (rest, found, len) = name_at(param, i)?;
            match words.iter().find(|w| **w == found) {
                Some(w) => Ok((rest, Arg::Word(w))),
                None => {
                    let expected = if words == PHASES {
                        "requested, executed or finished"
                    } else if words == LOOP_OVER {
                        "both, calls or texts"
                    } else {
                        "one of its words"
                    };
                    let kind = ExprErrorKind::UnknownWord {
                        option: param.key,
                        found,
                        expected,
                    };
                    fail(kind, i, len)
                }
            }
        }
        ParamKind::Speakers => {
            let (rest, items) = list(param, i)?;
            let mut speakers = Vec::with_capacity(items.len());
            for (name, at, len) in items {
                let speaker = if let Some(responder) = name.strip_prefix('@') {
                    if responder.is_empty() {
                        return fail(ExprErrorKind::EmptyName { option: param.key }, at, len);
                    }
                    Speaker::Responder(responder.to_owned())
                } else {
                    match name.parse::<Role>() {
                        Ok(role) => Speaker::Role(role),
                        Err(_) => {
                            let kind = ExprErrorKind::UnknownWord {
                                option: param.key,
                                found: name,
                                expected: "a role (user, llm, agent, system) or @responder",
                            };
                            return fail(kind, at, len);
                        }
                    }
                };
                speakers.push(speaker);
            }
            Ok((rest, Arg::Speakers(Cow::Owned(speakers))))
        }
        ParamKind::Names => {
            let (rest, items) = list(param, i)?;
            let mut names = Vec::with_capacity(items.len());
            for (name, at, len) in items {
                if name.is_empty() {
                    return fail(ExprErrorKind::EmptyName { option: param.key }, at, len);
                }
                names.push(name);
            }
            Ok((rest, Arg::Names(Cow::Owned(names))))
        }
        ParamKind::Json => json(param, i).map(|(rest, v)| (rest, Arg::Json(Cow::Owned(v)))),
        ParamKind::JsonObject => {
            let (rest, v) = json(param, i)?;
            if !v.is_object() {
                return wrong_type(param, "a JSON object (e.g. {\"query\": \"x\"})", i);
            }
            Ok((rest, Arg::Json(Cow::Owned(v))))
        }
    }
}

/// A name: a bare word or a string. Returns it with the length of its text.
fn name_at<'a>(param: &Param, i: &'a str) -> Result<(&'a str, String, usize), nom::Err<PErr<'a>>> {
    if let Ok((rest, w)) = word(i) {
        return Ok((rest, w.to_owned(), w.len()));
    }
    match string(i) {
        Ok((rest, s)) => Ok((rest, s.value, i.offset(rest))),
        Err(nom::Err::Error(_)) => Err(wrong_type_err(param, "a name (a word or a string)", i)),
        Err(e) => Err(e),
    }
}

/// `'[' [name (',' name)* [',']] ']'`, or one name alone. Each item with where it is.
#[allow(clippy::type_complexity)]
fn list<'a>(param: &Param, i: &'a str) -> PResult<'a, Vec<(String, &'a str, usize)>> {
    let Some(inner) = i.strip_prefix('[') else {
        let (rest, name, len) = name_at(param, i)?;
        return Ok((rest, vec![(name, i, len)]));
    };
    let mut items = Vec::new();
    let mut at = ws(inner);
    loop {
        if let Some(after) = at.strip_prefix(']') {
            return Ok((after, items));
        }
        if at.is_empty() {
            return fail_unexpected(at, "']' to close the list");
        }
        let (rest, name, len) = name_at(param, at)?;
        items.push((name, at, len));
        let rest = ws(rest);
        if let Some(after) = rest.strip_prefix(',') {
            at = ws(after);
        } else if rest.starts_with(']') {
            at = rest;
        } else {
            return fail_unexpected(rest, "',' or ']' in a list");
        }
    }
}

/// A JSON value, read by serde_json from the input at `i`. Objects, arrays and strings
/// end themselves; a number or a word ends at the next delimiter.
fn json<'a>(param: &Param, i: &'a str) -> PResult<'a, serde_json::Value> {
    let (source, parsed, len) = if i.starts_with(['{', '[', '"']) {
        let mut stream = serde_json::Deserializer::from_str(i).into_iter::<serde_json::Value>();
        let parsed = stream.next();
        (
            i,
            parsed.unwrap_or_else(|| serde_json::from_str("")),
            stream.byte_offset(),
        )
    } else {
        let end = i
            .find(|c: char| is_space(c) || matches!(c, ',' | ')' | ']' | '}'))
            .unwrap_or(i.len());
        let token = &i[..end];
        if token.is_empty() {
            return fail_unexpected(i, "a JSON value");
        }
        (token, serde_json::from_str(token), end)
    };
    match parsed {
        Ok(v) => match value_fault(param.key, &v) {
            Some(kind) => fail(kind, i, len),
            None => Ok((&i[len..], v)),
        },
        Err(e) => {
            let token = !i.starts_with(['{', '[', '"']);
            if token {
                // A word that is no JSON (`nul`, `yes`) or a malformed number: the
                // whole token.
                let kind = ExprErrorKind::InvalidJson {
                    option: param.key,
                    message: format!(
                        "'{source}' is not a JSON value (a number, a string, true, false, \
                         null, [...] or {{...}})"
                    ),
                };
                return fail(kind, i, source.len());
            }
            let (at, found) = if e.is_eof() {
                (source.len(), 0)
            } else {
                let at = json_error_offset(source, &e);
                (at, source[at..].chars().next().map_or(0, char::len_utf8))
            };
            let kind = ExprErrorKind::InvalidJson {
                option: param.key,
                message: json_message(&e),
            };
            fail(kind, &i[at..], found)
        }
    }
}

/// Where serde_json's error is, as a byte offset into `source`.
fn json_error_offset(source: &str, e: &serde_json::Error) -> usize {
    let line_start = source
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let at = (line_start + e.column().saturating_sub(1)).min(source.len());
    floor_boundary(source, at)
}

/// serde_json's message without its " at line L column C" (the span says where).
fn json_message(e: &serde_json::Error) -> String {
    let message = e.to_string();
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message,
    }
}

/// A DSL or regex error inside the string `s`, with its span mapped to the input.
fn inner_error<'a, T>(
    s: &Str<'a>,
    e: &ParseError,
    wrap: fn(crate::ParseErrorKind) -> ExprErrorKind,
) -> PResult<'a, T> {
    let span = e.span();
    let start = s.source_offset(span.start.min(s.value.len()));
    let end = s.source_offset(span.end.min(s.value.len())).max(start);
    fail(wrap(e.kind().clone()), &s.body[start..], end - start)
}
