//! [`AnswerValue`]: an answer as a value, and its text as Python's `str()` gives it.

use std::fmt::{self, Write as _};
use std::str::FromStr;

use super::literal::{self, LiteralError};

/// An answer as a value: what a `FINAL(...)` argument, a `SUBMIT` field or a REPL
/// variable holds.
///
/// It is a JSON value, plus the distinction Python makes between ints and floats, plus
/// [`AnswerValue::Expr`] for an expression that only running the code would evaluate
/// (`FINAL(total / n)`). Its own type, rather than `serde_json::Value`, so that the
/// library does not need serde_json; with the `serde` feature it (de)serializes as the
/// plain JSON value (an `Expr` as its text).
///
/// `Display` is Python's `str()`: `None`, `True`, `[1, 'a']`, `{'k': 2.5}`; a string is
/// its text.
///
/// ```
/// use doneseq::answer::AnswerValue;
///
/// let v = AnswerValue::parse("{'items': [1, 2.0, None], 'ok': True}")?;
/// assert_eq!(v.get("ok"), Some(&AnswerValue::Bool(true)));
/// assert_eq!(v.to_string(), "{'items': [1, 2.0, None], 'ok': True}");
/// assert_eq!(AnswerValue::parse(r#""caf\u00e9""#)?.as_str(), Some("café"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum AnswerValue {
    /// `None` or `null`.
    Null,
    /// `True`/`False` or `true`/`false`.
    Bool(bool),
    /// An int that fits in `i64` (a bigger one parses as a float, as in JSON parsers).
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    String(String),
    /// A list or a tuple.
    List(Vec<AnswerValue>),
    /// A dict or JSON object with string keys, in order (a repeated key keeps its
    /// first position and its last value, as in Python).
    Object(Vec<(String, AnswerValue)>),
    /// Code that is not a literal, as written: `total / n`, `f"{x}"`, `summary`.
    Expr(String),
}

impl AnswerValue {
    /// Parses a Python literal (or a JSON value): strings in every quote form with
    /// their escapes and prefixes `r`/`u`, adjacent strings concatenated, ints
    /// (`1_000`, `0xff`, signs), floats, `True`/`False`/`None`, `true`/`false`/`null`,
    /// lists, tuples (as lists), dicts with string keys.
    ///
    /// # Errors
    ///
    /// - [`LiteralError::Invalid`] for anything else: an expression (`f(x)`, `a + 1`),
    ///   a set (`{1, 2}`), bytes (`b"x"`), an f-string, complex numbers (`1j`), a
    ///   non-string key (`{1: 2}`), a leading zero (`007`), a float beyond `f64`
    ///   (`1e999`), `\N{...}` escapes, trailing input.
    /// - [`LiteralError::TooDeep`]: more than [`MAX_LITERAL_DEPTH`](super::MAX_LITERAL_DEPTH)
    ///   nested containers.
    ///
    /// ```
    /// use doneseq::answer::AnswerValue;
    ///
    /// assert_eq!(AnswerValue::parse("(1, 'a')")?, AnswerValue::List(vec![1.into(), "a".into()]));
    /// assert!(AnswerValue::parse("sum(data)").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(text: &str) -> Result<AnswerValue, LiteralError> {
        literal::parse(text)
    }

    /// The text of a [`AnswerValue::String`].
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            AnswerValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value of `key` in an [`AnswerValue::Object`].
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&AnswerValue> {
        match self {
            AnswerValue::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Python's `repr()`: like `str()`, but strings are quoted.
    pub(crate) fn write_repr(&self, out: &mut String) {
        match self {
            AnswerValue::String(s) => write_python_string(s, out),
            AnswerValue::List(items) => {
                out.push('[');
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    item.write_repr(out);
                }
                out.push(']');
            }
            AnswerValue::Object(fields) => {
                out.push('{');
                for (k, (key, value)) in fields.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    write_python_string(key, out);
                    out.push_str(": ");
                    value.write_repr(out);
                }
                out.push('}');
            }
            AnswerValue::Null => out.push_str("None"),
            AnswerValue::Bool(true) => out.push_str("True"),
            AnswerValue::Bool(false) => out.push_str("False"),
            AnswerValue::Int(i) => {
                let _ = write!(out, "{i}");
            }
            AnswerValue::Float(f) => write_python_float(*f, out),
            AnswerValue::Expr(e) => out.push_str(e),
        }
    }
}

impl fmt::Display for AnswerValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnswerValue::String(s) | AnswerValue::Expr(s) => f.write_str(s),
            other => {
                let mut out = String::new();
                other.write_repr(&mut out);
                f.write_str(&out)
            }
        }
    }
}

impl FromStr for AnswerValue {
    type Err = LiteralError;

    /// [`AnswerValue::parse`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AnswerValue::parse(s)
    }
}

impl From<&str> for AnswerValue {
    fn from(s: &str) -> Self {
        AnswerValue::String(s.to_owned())
    }
}

impl From<String> for AnswerValue {
    fn from(s: String) -> Self {
        AnswerValue::String(s)
    }
}

impl From<bool> for AnswerValue {
    fn from(b: bool) -> Self {
        AnswerValue::Bool(b)
    }
}

impl From<i64> for AnswerValue {
    fn from(i: i64) -> Self {
        AnswerValue::Int(i)
    }
}

impl From<i32> for AnswerValue {
    fn from(i: i32) -> Self {
        AnswerValue::Int(i64::from(i))
    }
}

impl From<f64> for AnswerValue {
    fn from(f: f64) -> Self {
        AnswerValue::Float(f)
    }
}

impl From<Vec<AnswerValue>> for AnswerValue {
    fn from(items: Vec<AnswerValue>) -> Self {
        AnswerValue::List(items)
    }
}

impl From<Vec<(String, AnswerValue)>> for AnswerValue {
    fn from(fields: Vec<(String, AnswerValue)>) -> Self {
        AnswerValue::Object(fields)
    }
}

/// Python's `repr()` of a string: single quotes unless the text has a `'` and no `"`;
/// backslashes, the quote, line breaks, tabs and other control characters escaped.
fn write_python_string(s: &str, out: &mut String) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {
                let _ = match u32::from(c) {
                    v @ 0..=0xff => write!(out, "\\x{v:02x}"),
                    v => write!(out, "\\u{v:04x}"),
                };
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// Python's `repr()` of a float: the shortest text that reads back the same, with `.0`
/// on whole numbers, and an exponent (`1e+16`, `1e-05`) outside `1e-4 <= |x| < 1e16`.
pub(crate) fn write_python_float(f: f64, out: &mut String) {
    if f.is_nan() {
        out.push_str("nan");
        return;
    }
    if f.is_infinite() {
        out.push_str(if f > 0.0 { "inf" } else { "-inf" });
        return;
    }
    // `{:e}` gives the shortest round-trip digits: "-1.2345e3".
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    out.push_str(sign);
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        if point <= 0 {
            out.push_str("0.");
            for _ in 0..-point {
                out.push('0');
            }
            out.push_str(&digits);
        } else {
            let point = usize::try_from(point).unwrap_or(0);
            if digits.len() <= point {
                out.push_str(&digits);
                for _ in digits.len()..point {
                    out.push('0');
                }
                out.push_str(".0");
            } else {
                out.push_str(&digits[..point]);
                out.push('.');
                out.push_str(&digits[point..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(f: f64) -> String {
        let mut out = String::new();
        write_python_float(f, &mut out);
        out
    }

    #[test]
    fn floats_print_as_python_does() {
        assert_eq!(float(0.95), "0.95");
        assert_eq!(float(1.0), "1.0");
        assert_eq!(float(-2.5), "-2.5");
        assert_eq!(float(100.0), "100.0");
        assert_eq!(float(123_456.789), "123456.789");
        assert_eq!(float(1e15), "1000000000000000.0");
        assert_eq!(float(1e16), "1e+16");
        assert_eq!(float(1.5e20), "1.5e+20");
        assert_eq!(float(0.0001), "0.0001");
        assert_eq!(float(0.00001), "1e-05");
        assert_eq!(float(-1.25e-7), "-1.25e-07");
        assert_eq!(float(0.0), "0.0");
        assert_eq!(float(f64::NAN), "nan");
        assert_eq!(float(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn str_and_repr() {
        let v =
            AnswerValue::parse(r#"["it's", "a\"b", 'x\ny', None, True, 2.0, {'k': []}]"#).unwrap();
        assert_eq!(
            v.to_string(),
            r#"["it's", 'a"b', 'x\ny', None, True, 2.0, {'k': []}]"#
        );
        assert_eq!(
            AnswerValue::from("plain 'text'").to_string(),
            "plain 'text'"
        );
        assert_eq!(AnswerValue::Expr("a + b".into()).to_string(), "a + b");
        assert_eq!(AnswerValue::from("\u{7}").to_string(), "\u{7}");
        assert_eq!(
            AnswerValue::List(vec!["\u{7}".into()]).to_string(),
            r"['\x07']"
        );
    }
}
