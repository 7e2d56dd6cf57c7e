//! The shape of a call's arguments: what makes `FINAL(...)`, `FINAL_VAR(...)` and
//! `SUBMIT(...)` well formed. Non-allocating, so that `find` can use it.

use std::ops::ControlFlow;

use super::lex::{self, Dialect, Strings};
use super::{FinalKind, RejectReason};

/// The most fields a `SUBMIT(...)` may have. Output signatures have a handful; the
/// bound keeps the duplicate-name check cheap on hostile input.
pub const MAX_SUBMIT_FIELDS: usize = 64;

/// The trimmed sub-span `a..b` of `text` (whitespace off both ends).
pub(crate) fn trim(text: &str, a: usize, b: usize) -> (usize, usize) {
    let Some(s) = text.get(a..b) else {
        return (a, a);
    };
    let start = a + (s.len() - s.trim_start().len());
    let end = start + s.trim().len();
    (start, end)
}

/// Checks the argument text `a..b` (between the parentheses) of a call of `kind`.
///
/// Returns the *key* of the call: what identifies its answer. For `FINAL` and `SUBMIT`
/// it is the trimmed argument (after `answer=` for `FINAL`); for `FINAL_VAR` it is the
/// variable name without quotes.
pub(crate) fn check(
    text: &str,
    dialect: Dialect,
    kind: FinalKind,
    a: usize,
    b: usize,
) -> Result<(usize, usize), RejectReason> {
    match kind {
        FinalKind::Direct => {
            let (s, e) = strip_keyword(text, trim(text, a, b), "answer");
            if s == e {
                Err(RejectReason::EmptyArgument)
            } else {
                Ok((s, e))
            }
        }
        FinalKind::Variable => {
            let (s, e) = strip_keyword(text, trim(text, a, b), "variable_name");
            if s == e {
                return Err(RejectReason::EmptyArgument);
            }
            variable_name(text, s, e).ok_or(RejectReason::InvalidVariableName)
        }
        FinalKind::Submit => {
            let (s, e) = trim(text, a, b);
            if s == e {
                return Err(RejectReason::EmptyArgument);
            }
            check_submit(text, dialect, s, e).map(|()| (s, e))
        }
    }
}

/// `name = rest` → the span of `rest`, when the trimmed span starts with the keyword
/// argument `name=` (and not `name==`).
fn strip_keyword(text: &str, (s, e): (usize, usize), name: &str) -> (usize, usize) {
    match keyword(text, s, e) {
        Some((k, v)) if text.get(k.0..k.1) == Some(name) => v,
        _ => (s, e),
    }
}

/// Splits a trimmed `name = value` at its `=`: the spans of the name and of the
/// trimmed value. `None` when the text does not start with an identifier and `=`.
pub(crate) fn keyword(text: &str, s: usize, e: usize) -> Option<((usize, usize), (usize, usize))> {
    let part = text.get(s..e)?;
    let name_len = part.len() - part.trim_start_matches(lex::is_word_char).len();
    let name = &part[..name_len];
    if !lex::is_identifier(name) {
        return None;
    }
    let rest = part[name_len..].trim_start();
    let after_eq = rest.strip_prefix('=')?;
    if after_eq.starts_with('=') {
        return None;
    }
    let value_start = e - after_eq.len();
    Some(((s, s + name_len), trim(text, value_start, e)))
}

/// The span of the name in `FINAL_VAR(name)` or `FINAL_VAR("name")` (any quote form,
/// optional `r`/`u` prefix): the whole argument must be that one identifier.
fn variable_name(text: &str, s: usize, e: usize) -> Option<(usize, usize)> {
    let arg = text.get(s..e)?;
    if lex::is_identifier(arg) {
        return Some((s, e));
    }
    let quote = arg.find(['"', '\''])?;
    if !matches!(&arg[..quote], "" | "r" | "R" | "u" | "U") {
        return None;
    }
    let bytes = text.as_bytes();
    let open = s + quote;
    if lex::string_end(bytes, open) != Ok(e) {
        return None;
    }
    // `string_end` closed it at `e`, so the quotes fit inside `s..e`.
    let q = bytes.get(open);
    let width = if bytes.get(open + 1) == q && bytes.get(open + 2) == q {
        3
    } else {
        1
    };
    let (ns, ne) = (open + width, e - width);
    let name = text.get(ns..ne)?;
    lex::is_identifier(name).then_some((ns, ne))
}

/// Calls `f` with each comma-separated part of `a..b` (trimmed), splitting only at
/// commas outside brackets and string literals, read in `dialect`. Stops when `f`
/// breaks. A trailing comma gives a last, empty part.
pub(crate) fn for_each_part(
    text: &str,
    dialect: Dialect,
    a: usize,
    b: usize,
    mut f: impl FnMut(usize, usize) -> ControlFlow<()>,
) {
    let bytes = text.as_bytes();
    let mut strings = Strings::new(dialect);
    let mut depth = 0usize;
    let mut part = a;
    let mut i = a;
    while i < b {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'"' | b'\'' => {
                i = strings.skip(text, i).min(b);
                continue;
            }
            b'#' if dialect == Dialect::Code => {
                i = lex::line_end(bytes, i).min(b);
                continue;
            }
            b',' if depth == 0 => {
                let (s, e) = trim(text, part, i);
                if f(s, e).is_break() {
                    return;
                }
                part = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    let (s, e) = trim(text, part, b);
    let _ = f(s, e);
}

/// `SUBMIT` takes keyword arguments only (`SUBMIT(answer=42, confidence=0.9)`), at
/// least one, at most [`MAX_SUBMIT_FIELDS`], each name once (Python refuses a
/// repeated keyword).
fn check_submit(text: &str, dialect: Dialect, a: usize, b: usize) -> Result<(), RejectReason> {
    let mut names = [(0usize, 0usize); MAX_SUBMIT_FIELDS];
    let mut count = 0;
    let mut result = Ok(());
    let mut trailing_empty = false;
    for_each_part(text, dialect, a, b, |s, e| {
        if trailing_empty {
            // An empty part before this one: `SUBMIT(a=1,,b=2)`.
            result = Err(RejectReason::InvalidSubmitArguments);
            return ControlFlow::Break(());
        }
        if s == e {
            trailing_empty = true;
            return ControlFlow::Continue(());
        }
        let Some((name, value)) = keyword(text, s, e) else {
            result = Err(RejectReason::InvalidSubmitArguments);
            return ControlFlow::Break(());
        };
        if value.0 == value.1 {
            result = Err(RejectReason::InvalidSubmitArguments);
            return ControlFlow::Break(());
        }
        let this = text.get(name.0..name.1);
        if names[..count].iter().any(|&(s, e)| text.get(s..e) == this) {
            result = Err(RejectReason::DuplicateField);
            return ControlFlow::Break(());
        }
        if count == MAX_SUBMIT_FIELDS {
            result = Err(RejectReason::TooManyFields);
            return ControlFlow::Break(());
        }
        names[count] = name;
        count += 1;
        ControlFlow::Continue(())
    });
    result?;
    if count == 0 {
        // `SUBMIT(,)`: only the empty trailing part.
        return Err(RejectReason::InvalidSubmitArguments);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str, kind: FinalKind) -> Result<&str, RejectReason> {
        let a = text.find('(').unwrap() + 1;
        let b = text.rfind(')').unwrap();
        check(text, Dialect::Text, kind, a, b).map(|(s, e)| &text[s..e])
    }

    #[test]
    fn keys() {
        use FinalKind::*;
        assert_eq!(key("FINAL( 42 )", Direct), Ok("42"));
        assert_eq!(key("FINAL(answer = 42)", Direct), Ok("42"));
        assert_eq!(key("FINAL(answer == 42)", Direct), Ok("answer == 42"));
        assert_eq!(key("FINAL( )", Direct), Err(RejectReason::EmptyArgument));
        assert_eq!(key("FINAL_VAR(result)", Variable), Ok("result"));
        assert_eq!(key("FINAL_VAR('result')", Variable), Ok("result"));
        assert_eq!(key("FINAL_VAR(\"\"\"result\"\"\")", Variable), Ok("result"));
        assert_eq!(key("FINAL_VAR(r\"result\")", Variable), Ok("result"));
        assert_eq!(key("FINAL_VAR(variable_name='x')", Variable), Ok("x"));
        assert_eq!(
            key("FINAL_VAR(\"my var\")", Variable),
            Err(RejectReason::InvalidVariableName)
        );
        assert_eq!(
            key("FINAL_VAR(f\"x\")", Variable),
            Err(RejectReason::InvalidVariableName)
        );
        assert_eq!(
            key("FINAL_VAR(x[0])", Variable),
            Err(RejectReason::InvalidVariableName)
        );
        assert_eq!(
            key("SUBMIT(a=1, b=f(x, y),)", Submit),
            Ok("a=1, b=f(x, y),")
        );
        assert_eq!(
            key("SUBMIT(a=1, a=2)", Submit),
            Err(RejectReason::DuplicateField)
        );
        assert_eq!(
            key("SUBMIT(42)", Submit),
            Err(RejectReason::InvalidSubmitArguments)
        );
        assert_eq!(
            key("SUBMIT(a=1,,b=2)", Submit),
            Err(RejectReason::InvalidSubmitArguments)
        );
        assert_eq!(
            key("SUBMIT(,)", Submit),
            Err(RejectReason::InvalidSubmitArguments)
        );
        assert_eq!(
            key("SUBMIT(a=)", Submit),
            Err(RejectReason::InvalidSubmitArguments)
        );
        assert_eq!(
            key("SUBMIT(a==1)", Submit),
            Err(RejectReason::InvalidSubmitArguments)
        );
    }

    #[test]
    fn too_many_fields() {
        let fields: Vec<String> = (0..=MAX_SUBMIT_FIELDS).map(|i| format!("f{i}=1")).collect();
        let text = format!("SUBMIT({})", fields.join(", "));
        assert_eq!(
            key(&text, FinalKind::Submit),
            Err(RejectReason::TooManyFields)
        );
        let text = format!("SUBMIT({})", fields[1..].join(", "));
        assert!(key(&text, FinalKind::Submit).is_ok());
    }
}
