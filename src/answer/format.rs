//! [`format_final_answer`]: the answer's text, by rlm-code's rules.

use std::fmt::Write as _;

use super::AnswerValue;
use super::value::write_python_float;

/// The text of a final answer, by rlm-code's rules:
///
/// | value | text |
/// |---|---|
/// | a string | as is |
/// | an object with an `answer` key | that value's `str()` |
/// | another object | JSON, indented by 2 (Python's `json.dumps(x, indent=2)`) |
/// | a list | each item's `str()`, joined by newlines |
/// | anything else | its `str()` ([`AnswerValue`]'s `Display`) |
///
/// One difference from `json.dumps`: non-ASCII text stays as it is (Python's default
/// escapes it as `\uXXXX`; both are the same JSON, this one is readable). An
/// [`AnswerValue::Expr`] inside an object prints as a JSON string of its text
/// (`json.dumps` would fail on a value it cannot serialize).
///
/// ```
/// use doneseq::answer::{AnswerValue, format_final_answer};
///
/// let f = |s: &str| format_final_answer(&AnswerValue::parse(s).unwrap());
/// assert_eq!(f("'hello'"), "hello");
/// assert_eq!(f("{'answer': 42}"), "42");
/// assert_eq!(f("{'key': 'value', 'count': 10}"), "{\n  \"key\": \"value\",\n  \"count\": 10\n}");
/// assert_eq!(f("['line1', 'line2']"), "line1\nline2");
/// assert_eq!(f("42"), "42");
/// ```
#[must_use]
pub fn format_final_answer(answer: &AnswerValue) -> String {
    match answer {
        AnswerValue::String(s) => s.clone(),
        AnswerValue::Object(_) => match answer.get("answer") {
            Some(inner) => inner.to_string(),
            None => {
                let mut out = String::new();
                write_json(answer, 0, &mut out);
                out
            }
        },
        AnswerValue::List(items) => {
            let mut out = String::new();
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push('\n');
                }
                let _ = write!(out, "{item}");
            }
            out
        }
        other => other.to_string(),
    }
}

/// JSON as Python's `json.dumps(value, indent=2, ensure_ascii=False)` writes it.
fn write_json(value: &AnswerValue, indent: usize, out: &mut String) {
    let newline = |out: &mut String, level: usize| {
        out.push('\n');
        for _ in 0..level {
            out.push_str("  ");
        }
    };
    match value {
        AnswerValue::Null => out.push_str("null"),
        AnswerValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        AnswerValue::Int(i) => {
            let _ = write!(out, "{i}");
        }
        AnswerValue::Float(f) if f.is_nan() => out.push_str("NaN"),
        AnswerValue::Float(f) if f.is_infinite() => {
            out.push_str(if *f > 0.0 { "Infinity" } else { "-Infinity" });
        }
        AnswerValue::Float(f) => write_python_float(*f, out),
        AnswerValue::String(s) | AnswerValue::Expr(s) => write_json_string(s, out),
        AnswerValue::List(items) if items.is_empty() => out.push_str("[]"),
        AnswerValue::List(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                newline(out, indent + 1);
                write_json(item, indent + 1, out);
            }
            newline(out, indent);
            out.push(']');
        }
        AnswerValue::Object(fields) if fields.is_empty() => out.push_str("{}"),
        AnswerValue::Object(fields) => {
            out.push('{');
            for (k, (key, item)) in fields.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                newline(out, indent + 1);
                write_json_string(key, out);
                out.push_str(": ");
                write_json(item, indent + 1, out);
            }
            newline(out, indent);
            out.push('}');
        }
    }
}

fn write_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_json_matches_python() {
        let v = AnswerValue::parse(
            r#"{"a": [1, {"b": null}], "c": {}, "d": [], "e": "x\"y\u0001", "f": 1e20}"#,
        )
        .unwrap();
        assert_eq!(
            format_final_answer(&v),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {},\n  \"d\": [],\n  \"e\": \"x\\\"y\\u0001\",\n  \"f\": 1e+20\n}"
        );
    }

    #[test]
    fn answer_key_and_lists_use_str() {
        let f = |s: &str| format_final_answer(&AnswerValue::parse(s).unwrap());
        assert_eq!(f("{'answer': [1, 'a']}"), "[1, 'a']");
        assert_eq!(f("{'answer': 'text'}"), "text");
        assert_eq!(f("{'answer': None}"), "None");
        assert_eq!(f("[1, 'a', [2, 'b'], True]"), "1\na\n[2, 'b']\nTrue");
        assert_eq!(f("[]"), "");
        assert_eq!(f("2.50"), "2.5");
        assert_eq!(f("False"), "False");
        assert_eq!(f("None"), "None");
        assert_eq!(f("{}"), "{}");
    }
}
