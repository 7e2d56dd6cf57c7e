//! A parser for the literals a model writes as an answer: Python's (`ast.literal_eval`
//! without sets, bytes, complex numbers and arithmetic) and JSON's, which overlap.
//!
//! Recursive descent with an explicit depth bound ([`MAX_LITERAL_DEPTH`]), so that no
//! input can exhaust the stack.

use std::collections::HashMap;

use super::AnswerValue;
use super::lex;

/// The deepest nesting of lists, tuples and dicts [`AnswerValue::parse`] accepts.
pub const MAX_LITERAL_DEPTH: usize = 64;

/// Why a text is not a literal [`AnswerValue::parse`] accepts.
///
/// ```
/// use doneseq::answer::{AnswerValue, LiteralError, MAX_LITERAL_DEPTH};
///
/// assert_eq!(AnswerValue::parse("f(x)"), Err(LiteralError::Invalid { at: 0 }));
/// assert_eq!(AnswerValue::parse("[1, 2"), Err(LiteralError::Invalid { at: 5 }));
/// let deep = "[".repeat(MAX_LITERAL_DEPTH + 1);
/// assert!(matches!(AnswerValue::parse(&deep), Err(LiteralError::TooDeep { .. })));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum LiteralError {
    /// Not a literal from byte `at` on, e.g. `f(x)`, `[1, 2`, `{1, 2}` (a set), `b"x"`
    /// (bytes), `f"{x}"` (an f-string), `{1: "a"}` (a key that is not a string), `007`.
    #[error("not a literal (unexpected input at byte {at})")]
    Invalid {
        /// Where the parser stopped.
        at: usize,
    },
    /// Lists, tuples and dicts nested more than [`MAX_LITERAL_DEPTH`] deep.
    #[error("literal nested deeper than {MAX_LITERAL_DEPTH} levels (at byte {at})")]
    TooDeep {
        /// The bracket that went one level too deep.
        at: usize,
    },
}

/// Parses a whole text (surrounding whitespace allowed) as one literal.
pub(crate) fn parse(text: &str) -> Result<AnswerValue, LiteralError> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        i: 0,
    };
    p.ws();
    let value = p.value(0)?;
    p.ws();
    if p.i == p.bytes.len() {
        Ok(value)
    } else {
        Err(p.invalid())
    }
}

struct Parser<'t> {
    text: &'t str,
    bytes: &'t [u8],
    i: usize,
}

type Parsed = Result<AnswerValue, LiteralError>;

impl Parser<'_> {
    fn invalid(&self) -> LiteralError {
        LiteralError::Invalid { at: self.i }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    /// Python's whitespace between tokens (inside brackets, line breaks too).
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') = self.peek() {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.ws();
        if self.peek() == Some(b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Parsed {
        self.ws();
        match self.peek() {
            Some(b'[' | b'(' | b'{') if depth >= MAX_LITERAL_DEPTH => {
                Err(LiteralError::TooDeep { at: self.i })
            }
            Some(b'[') => self.sequence(b']', depth),
            Some(b'(') => self.tuple(depth),
            Some(b'{') => self.dict(depth),
            Some(b'"' | b'\'') => self.strings(false),
            Some(b'-' | b'+' | b'.' | b'0'..=b'9') => self.number(),
            Some(_) => self.word(),
            None => Err(self.invalid()),
        }
    }

    /// `[a, b, ...]`.
    fn sequence(&mut self, close: u8, depth: usize) -> Parsed {
        self.i += 1;
        if self.eat(close) {
            return Ok(AnswerValue::List(Vec::new()));
        }
        let first = self.value(depth + 1)?;
        self.rest_of_sequence(vec![first], close, depth)
    }

    /// After the items read so far: `, item` until `close` (a trailing comma allowed).
    fn rest_of_sequence(&mut self, mut items: Vec<AnswerValue>, close: u8, depth: usize) -> Parsed {
        loop {
            if !self.eat(b',') {
                return if self.eat(close) {
                    Ok(AnswerValue::List(items))
                } else {
                    Err(self.invalid())
                };
            }
            if self.eat(close) {
                return Ok(AnswerValue::List(items));
            }
            items.push(self.value(depth + 1)?);
        }
    }

    /// `()`, `(x)` (just `x`, parenthesized), `(x,)`, `(x, y)`: tuples are lists.
    fn tuple(&mut self, depth: usize) -> Parsed {
        self.i += 1;
        if self.eat(b')') {
            return Ok(AnswerValue::List(Vec::new()));
        }
        let first = self.value(depth + 1)?;
        if self.eat(b')') {
            return Ok(first);
        }
        self.rest_of_sequence(vec![first], b')', depth)
    }

    /// `{"k": v, ...}`: string keys only (JSON's objects, and what an answer uses); a
    /// repeated key keeps its first position and its last value, as a Python dict does.
    fn dict(&mut self, depth: usize) -> Parsed {
        self.i += 1;
        let mut fields: Vec<(String, AnswerValue)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        loop {
            if self.eat(b'}') {
                return Ok(AnswerValue::Object(fields));
            }
            self.ws();
            let AnswerValue::String(key) = self.value(depth + 1)? else {
                return Err(self.invalid());
            };
            if !self.eat(b':') {
                return Err(self.invalid());
            }
            let value = self.value(depth + 1)?;
            match index.get(&key) {
                Some(&k) => fields[k].1 = value,
                None => {
                    index.insert(key.clone(), fields.len());
                    fields.push((key, value));
                }
            }
            if !self.eat(b',') {
                return if self.eat(b'}') {
                    Ok(AnswerValue::Object(fields))
                } else {
                    Err(self.invalid())
                };
            }
        }
    }

    /// One or more adjacent string literals, concatenated as Python does; the cursor is
    /// on the first one's quote, and `raw` says whether it had an `r` prefix.
    fn strings(&mut self, mut raw: bool) -> Parsed {
        let mut out = String::new();
        loop {
            self.string(&mut out, raw)?;
            self.ws();
            raw = match self.peek() {
                Some(b'"' | b'\'') => false,
                _ => match self.prefixed_string() {
                    Some(raw) => {
                        self.i += 1;
                        raw
                    }
                    None => return Ok(AnswerValue::String(out)),
                },
            };
        }
    }

    /// At a one-letter string prefix before a quote: whether it is raw. (`b` and `f`
    /// prefixes are not plain strings; two-letter ones are raw bytes or raw f-strings.)
    fn prefixed_string(&self) -> Option<bool> {
        let quote = self.bytes.get(self.i + 1)?;
        if !matches!(quote, b'"' | b'\'') {
            return None;
        }
        match self.peek()? {
            b'r' | b'R' => Some(true),
            b'u' | b'U' => Some(false),
            _ => None,
        }
    }

    /// One string literal at the quote under the cursor, appended to `out`.
    fn string(&mut self, out: &mut String, raw: bool) -> Result<(), LiteralError> {
        let start = self.i;
        let end = lex::string_end(self.bytes, start).map_err(|at| LiteralError::Invalid { at })?;
        let q = self.bytes[start];
        let width =
            if self.bytes.get(start + 1) == Some(&q) && self.bytes.get(start + 2) == Some(&q) {
                3
            } else {
                1
            };
        let inner = self
            .text
            .get(start + width..end - width)
            .ok_or(LiteralError::Invalid { at: start })?;
        if raw {
            out.push_str(inner);
        } else {
            unescape(inner, out).map_err(|k| LiteralError::Invalid {
                at: start + width + k,
            })?;
        }
        self.i = end;
        Ok(())
    }

    /// Ints and floats, with an optional sign: Python's forms (underscores, `0x`, `0o`,
    /// `0b`, `1.`, `.5`, `1e3`), and JSON's (a subset). An int beyond `i64` becomes a
    /// float, as JSON parsers do; a float beyond `f64` is not a literal.
    fn number(&mut self) -> Parsed {
        let start = self.i;
        let negative = match self.peek() {
            Some(b'-') => {
                self.i += 1;
                true
            }
            Some(b'+') => {
                self.i += 1;
                false
            }
            _ => false,
        };
        if self.i > start {
            self.ws();
        }
        let body_start = self.i;
        while let Some(b) = self.peek() {
            let exponent_sign = matches!(b, b'+' | b'-')
                && matches!(
                    self.i.checked_sub(1).and_then(|k| self.bytes.get(k)),
                    Some(b'e' | b'E')
                )
                && !self.text[body_start..self.i].starts_with("0x")
                && !self.text[body_start..self.i].starts_with("0X");
            if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || exponent_sign {
                self.i += 1;
            } else {
                break;
            }
        }
        let body = &self.text[body_start..self.i];
        if self.peek().is_some_and(|b| b >= 0x80) {
            // A number glued to a non-ASCII letter is a word, not a number.
            return Err(self.invalid());
        }
        let sign = if negative { "-" } else { "" };
        parse_number(body, sign).ok_or(LiteralError::Invalid { at: start })
    }

    /// `True`, `False`, `None`, `true`, `false`, `null`, or a prefixed string.
    fn word(&mut self) -> Parsed {
        if let Some(raw) = self.prefixed_string() {
            self.i += 1;
            return self.strings(raw);
        }
        let rest = &self.text[self.i..];
        let len = rest.len() - rest.trim_start_matches(lex::is_word_char).len();
        let value = match &rest[..len] {
            "True" | "true" => AnswerValue::Bool(true),
            "False" | "false" => AnswerValue::Bool(false),
            "None" | "null" => AnswerValue::Null,
            _ => return Err(self.invalid()),
        };
        self.i += len;
        Ok(value)
    }
}

/// A number's text (no sign) as a value, or `None` when it is not a number literal.
fn parse_number(body: &str, sign: &str) -> Option<AnswerValue> {
    let lower = body.to_ascii_lowercase();
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(digits) = lower.strip_prefix(prefix) {
            // Python allows one underscore right after the prefix: 0x_ff.
            let digits = digits.strip_prefix('_').unwrap_or(digits);
            let digits = clean_digits(digits, |c| c.is_digit(radix))?;
            let magnitude = u128::from_str_radix(&digits, radix).ok()?;
            return Some(int_value(sign, magnitude));
        }
    }
    if lower.ends_with('j') {
        return None; // complex
    }
    let (mantissa, exponent) = match lower.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (lower.as_str(), None),
    };
    let (int_part, frac_part) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let int_digits = if int_part.is_empty() {
        String::new()
    } else {
        clean_digits(int_part, |c| c.is_ascii_digit())?
    };
    let frac_digits = match frac_part {
        Some("") | None => String::new(),
        Some(f) => clean_digits(f, |c| c.is_ascii_digit())?,
    };
    if int_digits.is_empty() && frac_digits.is_empty() {
        return None;
    }
    let exp = match exponent {
        None => None,
        Some(e) => {
            let (esign, edigits) = match e.strip_prefix(['+', '-']) {
                Some(d) => (&e[..1], d),
                None => ("", e),
            };
            Some(format!(
                "{esign}{}",
                clean_digits(edigits, |c| c.is_ascii_digit())?
            ))
        }
    };
    if frac_part.is_none() && exp.is_none() {
        // Python refuses leading zeros in ints (`007`), except for zero itself.
        if int_digits.len() > 1
            && int_digits.starts_with('0')
            && int_digits.bytes().any(|b| b != b'0')
        {
            return None;
        }
        let magnitude: u128 = int_digits.parse().ok()?;
        return Some(int_value(sign, magnitude));
    }
    let text = format!(
        "{sign}{}.{}e{}",
        if int_digits.is_empty() {
            "0"
        } else {
            &int_digits
        },
        if frac_digits.is_empty() {
            "0"
        } else {
            &frac_digits
        },
        exp.as_deref().unwrap_or("0"),
    );
    let value: f64 = text.parse().ok()?;
    value.is_finite().then_some(AnswerValue::Float(value))
}

/// An int from its sign and magnitude: `Int` when it fits in `i64`, else `Float`.
fn int_value(sign: &str, magnitude: u128) -> AnswerValue {
    let signed = if sign == "-" {
        0i128.checked_sub_unsigned(magnitude)
    } else {
        i128::try_from(magnitude).ok()
    };
    match signed.and_then(|v| i64::try_from(v).ok()) {
        Some(v) => AnswerValue::Int(v),
        // Beyond i64, as JSON parsers do: a float.
        None => {
            let f = magnitude as f64;
            AnswerValue::Float(if sign == "-" { -f } else { f })
        }
    }
}

/// Digits with Python's underscores (only between two digits) removed; `None` when a
/// character is not a digit or an underscore is misplaced.
fn clean_digits(s: &str, is_digit: impl Fn(char) -> bool) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut prev_digit = false;
    for c in s.chars() {
        if c == '_' {
            if !prev_digit {
                return None;
            }
            prev_digit = false;
        } else if is_digit(c) {
            out.push(c);
            prev_digit = true;
        } else {
            return None;
        }
    }
    (prev_digit && !out.is_empty()).then_some(out)
}

/// Decodes Python's escapes in a non-raw string body into `out`. `Err(offset)` at an
/// escape Python refuses (`\x4`, `\N{...}`, `\U` beyond Unicode).
///
/// Differences from Python, all towards what a model means: a JSON-style surrogate
/// pair (`\ud83d\ude00`) is one character (Python keeps two lone surrogates, which Rust
/// strings cannot hold), and a lone surrogate becomes U+FFFD.
fn unescape(s: &str, out: &mut String) -> Result<(), usize> {
    let mut chars = s.char_indices().peekable();
    while let Some((k, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some((_, e)) = chars.next() else {
            return Err(k);
        };
        let hex = |chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>, n: usize| {
            let mut v = 0u32;
            for _ in 0..n {
                let d = chars.next().and_then(|(_, c)| c.to_digit(16)).ok_or(k)?;
                v = v * 16 + d;
            }
            Ok::<u32, usize>(v)
        };
        match e {
            '\n' => {}
            '\\' | '\'' | '"' => out.push(e),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'v' => out.push('\x0b'),
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|&(_, c)| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v).ok_or(k)?);
            }
            'x' => out.push(char::from_u32(hex(&mut chars, 2)?).ok_or(k)?),
            'u' => {
                let v = hex(&mut chars, 4)?;
                if (0xD800..0xDC00).contains(&v) {
                    // A high surrogate: combine with a following `\uDC00`-`\uDFFF`.
                    let mut ahead = chars.clone();
                    let low = match (ahead.next(), ahead.next()) {
                        (Some((_, '\\')), Some((_, 'u'))) => hex(&mut ahead, 4).ok(),
                        _ => None,
                    };
                    match low.filter(|l| (0xDC00..0xE000).contains(l)) {
                        Some(l) => {
                            chars = ahead;
                            let c = 0x10000 + ((v - 0xD800) << 10) + (l - 0xDC00);
                            out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
                        }
                        None => out.push('\u{fffd}'),
                    }
                } else {
                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                }
            }
            'U' => out.push(char::from_u32(hex(&mut chars, 8)?).ok_or(k)?),
            'N' => return Err(k),
            other => {
                // Python keeps an unknown escape as written (with a warning).
                out.push('\\');
                out.push(other);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use AnswerValue::*;

    fn s(v: &str) -> AnswerValue {
        String(v.to_owned())
    }

    #[test]
    fn scalars() {
        assert_eq!(parse("42"), Ok(Int(42)));
        assert_eq!(parse(" -42 "), Ok(Int(-42)));
        assert_eq!(parse("1_000"), Ok(Int(1000)));
        assert_eq!(parse("0x_ff"), Ok(Int(255)));
        assert_eq!(parse("0o17"), Ok(Int(15)));
        assert_eq!(parse("0b101"), Ok(Int(5)));
        assert_eq!(parse("-9223372036854775808"), Ok(Int(i64::MIN)));
        assert_eq!(
            parse("9223372036854775808"),
            Ok(Float(9.223_372_036_854_776e18))
        );
        assert_eq!(parse("0.95"), Ok(Float(0.95)));
        assert_eq!(parse("1."), Ok(Float(1.0)));
        assert_eq!(parse(".5"), Ok(Float(0.5)));
        assert_eq!(parse("1e3"), Ok(Float(1000.0)));
        assert_eq!(parse("1.5E-3"), Ok(Float(0.0015)));
        assert_eq!(parse("000"), Ok(Int(0)));
        assert!(parse("007").is_err());
        assert!(parse("1e999").is_err());
        assert!(parse("1j").is_err());
        assert!(parse("1__0").is_err());
        assert!(parse("1_").is_err());
        assert!(parse("0x").is_err());
        assert!(parse("-").is_err());
        assert!(parse(".").is_err());
        assert!(parse("1.2.3").is_err());
        assert!(parse("42abc").is_err());
        assert_eq!(parse("True"), Ok(Bool(true)));
        assert_eq!(parse("false"), Ok(Bool(false)));
        assert_eq!(parse("None"), Ok(Null));
        assert_eq!(parse("null"), Ok(Null));
        assert!(parse("Nonesuch").is_err());
        assert!(parse("answer").is_err());
    }

    #[test]
    fn strings() {
        assert_eq!(parse(r#""42""#), Ok(s("42")));
        assert_eq!(parse("'42'"), Ok(s("42")));
        assert_eq!(parse("'''a\nb'''"), Ok(s("a\nb")));
        assert_eq!(parse(r#""""a"b""""#), Ok(s("a\"b")));
        assert_eq!(parse(r#""a\"b\n\t\\""#), Ok(s("a\"b\n\t\\")));
        assert_eq!(
            parse(r#"'\x41\u00e9\U0001F600\101'"#),
            Ok(s("A\u{e9}\u{1F600}A"))
        );
        assert_eq!(parse(r#""\ud83d\ude00""#), Ok(s("\u{1F600}")));
        assert_eq!(parse(r#""\ud83d""#), Ok(s("\u{fffd}")));
        assert_eq!(parse(r#""\d""#), Ok(s("\\d")));
        assert_eq!(parse(r#"r"\d\"""#), Ok(s("\\d\\\"")));
        assert_eq!(parse(r#"u"x""#), Ok(s("x")));
        assert_eq!(parse(r#""a" 'b' r"\c""#), Ok(s("ab\\c")));
        assert_eq!(parse(r#"r"a" "b""#), Ok(s("ab")));
        assert!(parse(r#"b"x""#).is_err());
        assert!(parse(r#"f"{x}""#).is_err());
        assert!(parse(r#""\N{BULLET}""#).is_err());
        assert!(parse(r#""\x4""#).is_err());
        assert!(parse(r#""abc"#).is_err());
        assert!(parse(r#""He said "hi"""#).is_err());
    }

    #[test]
    fn containers() {
        assert_eq!(parse("[]"), Ok(List(vec![])));
        assert_eq!(
            parse("[1, 'a', [None],]"),
            Ok(List(vec![Int(1), s("a"), List(vec![Null])]))
        );
        assert_eq!(parse("()"), Ok(List(vec![])));
        assert_eq!(parse("(1)"), Ok(Int(1)));
        assert_eq!(parse("(1,)"), Ok(List(vec![Int(1)])));
        assert_eq!(parse("(1, 2)"), Ok(List(vec![Int(1), Int(2)])));
        assert_eq!(
            parse(r#"{"sentiment": "positive", "confidence": 0.95}"#),
            Ok(Object(vec![
                ("sentiment".into(), s("positive")),
                ("confidence".into(), Float(0.95)),
            ]))
        );
        assert_eq!(
            parse("{'a': 1, 'b': 2, 'a': 3}"),
            Ok(Object(vec![("a".into(), Int(3)), ("b".into(), Int(2))]))
        );
        assert_eq!(parse("{}"), Ok(Object(vec![])));
        assert!(parse("{1: 'a'}").is_err());
        assert!(parse("{1, 2}").is_err());
        assert!(parse("[1 2]").is_err());
        assert!(parse("[1,,2]").is_err());
        assert!(parse("1, 2").is_err());
    }

    #[test]
    fn depth_is_bounded() {
        let ok = format!(
            "{}{}",
            "[".repeat(MAX_LITERAL_DEPTH),
            "]".repeat(MAX_LITERAL_DEPTH)
        );
        assert!(parse(&ok).is_ok());
        let deep = format!(
            "{}{}",
            "[".repeat(MAX_LITERAL_DEPTH + 1),
            "]".repeat(MAX_LITERAL_DEPTH + 1)
        );
        assert_eq!(
            parse(&deep),
            Err(LiteralError::TooDeep {
                at: MAX_LITERAL_DEPTH
            })
        );
        let mixed = "[{'a': (".repeat(40);
        assert!(matches!(parse(&mixed), Err(LiteralError::TooDeep { .. })));
    }
}
