//! Langroid-style tools: JSON objects with a `"request"` key inside the content.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::wire::Str;
use crate::ToolCall;

/// How much JSON the search for Langroid tools in one message's content may parse:
/// this many bytes per byte of content, plus 1 MiB.
///
/// The search tries every `{` that is not inside an object already found, and an
/// attempt that fails may have read far: content full of `{` that never close (`{"a":
/// {"a": ...` cut off) would be read once per `{`, quadratic in the content. Past this
/// budget the search stops with [`TranscriptErrorKind::ToolSearch`] rather than skip
/// the rest (a tool after it would be silently lost). Prose with braces, code and
/// complete JSON cost about one byte per byte; a cut-off object nested `d` deep about
/// `d`.
///
/// [`TranscriptErrorKind::ToolSearch`]: super::TranscriptErrorKind::ToolSearch
pub const MAX_TOOL_SEARCH_WORK: usize = 16;

/// The budget's constant part: small contents are never refused.
const TOOL_SEARCH_SLACK: usize = 1 << 20;

/// Every top-level JSON object in `content` whose `"request"` is a non-empty string,
/// as a tool call named by it (the whole object is its arguments), in order, borrowed
/// from `content`. As Langroid, the objects may be embedded in prose.
///
/// # Errors
///
/// The search would parse more than [`MAX_TOOL_SEARCH_WORK`] allows.
pub(super) fn tool_calls(content: &str) -> Result<Vec<ToolCall<'_>>, String> {
    let budget = content
        .len()
        .saturating_mul(MAX_TOOL_SEARCH_WORK)
        .saturating_add(TOOL_SEARCH_SLACK);
    let mut spent = 0usize;
    let mut calls = Vec::new();
    let mut from = 0;
    while let Some(offset) = content[from..].find('{') {
        let start = from + offset;
        let text = &content[start..];
        // One pass: where the object ends, and its `request` (nothing else kept; no
        // allocation unless the name has escapes).
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Request<'_>>();
        match stream.next() {
            Some(Ok(Request(request))) => {
                let end = start + stream.byte_offset();
                spent += end - start;
                if let Some(name) = request.filter(|name| !name.is_empty()) {
                    calls.push(ToolCall::new(name, &content[start..end]));
                }
                from = end;
            }
            Some(Err(e)) => {
                spent += error_offset(text, &e).max(1);
                from = start + 1;
            }
            // A `{` always starts a value or an error.
            None => from = start + 1,
        }
        if spent > budget {
            return Err(format!(
                "the search for Langroid tool JSON stopped at byte {start} of the content: \
                 it would parse more than {MAX_TOOL_SEARCH_WORK} bytes per byte (many '{{' \
                 that never close)"
            ));
        }
    }
    Ok(calls)
}

/// What a JSON object says of a Langroid tool: its `"request"` where that is a string
/// (the last, where it is given twice, as a parsed object keeps it).
struct Request<'c>(Option<Cow<'c, str>>);

impl<'de> Deserialize<'de> for Request<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Request<'de>, D::Error> {
        struct ObjectVisitor;
        impl<'de> Visitor<'de> for ObjectVisitor {
            type Value = Request<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Request<'de>, A::Error> {
                let mut request = None;
                while let Some(Str(key)) = map.next_key::<Str<'de>>()? {
                    if key == "request" {
                        request = map.next_value::<MaybeText<'de>>()?.0;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(Request(request))
            }
        }
        deserializer.deserialize_map(ObjectVisitor)
    }
}

/// Any JSON value: the text, where it is a string.
struct MaybeText<'c>(Option<Cow<'c, str>>);

impl<'de> Deserialize<'de> for MaybeText<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<MaybeText<'de>, D::Error> {
        struct AnyVisitor;
        impl<'de> Visitor<'de> for AnyVisitor {
            type Value = MaybeText<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<MaybeText<'de>, E> {
                Ok(MaybeText(Some(Cow::Borrowed(text))))
            }
            fn visit_str<E>(self, text: &str) -> Result<MaybeText<'de>, E> {
                Ok(MaybeText(Some(Cow::Owned(text.to_owned()))))
            }
            fn visit_string<E>(self, text: String) -> Result<MaybeText<'de>, E> {
                Ok(MaybeText(Some(Cow::Owned(text))))
            }
            fn visit_bool<E>(self, _: bool) -> Result<MaybeText<'de>, E> {
                Ok(MaybeText(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<MaybeText<'de>, E> {
                Ok(MaybeText(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<MaybeText<'de>, E> {
                Ok(MaybeText(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<MaybeText<'de>, E> {
                Ok(MaybeText(None))
            }
            fn visit_unit<E>(self) -> Result<MaybeText<'de>, E> {
                Ok(MaybeText(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MaybeText<'de>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(MaybeText(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MaybeText<'de>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(MaybeText(None))
            }
        }
        deserializer.deserialize_any(AnyVisitor)
    }
}

/// How far into `text` serde_json read before `error` (from its line and column).
fn error_offset(text: &str, error: &serde_json::Error) -> usize {
    let line_start = match error.line() {
        0 | 1 => 0,
        line => text
            .match_indices('\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1),
    };
    (line_start + error.column()).min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_tools_in_prose() {
        let calls = tool_calls(
            r#"Sure. {"request": "calculator", "x": "6*7"} and {"a": 1} {"request": "search"}"#,
        )
        .unwrap();
        let names: Vec<&str> = calls.iter().map(ToolCall::name).collect();
        assert_eq!(names, ["calculator", "search"]);
        assert_eq!(
            calls[0].arguments(),
            r#"{"request": "calculator", "x": "6*7"}"#
        );
        assert!(tool_calls("{ not json {{").unwrap().is_empty());
        assert!(tool_calls(&"{".repeat(100_000)).unwrap().is_empty());
    }

    #[test]
    fn a_request_is_a_string_at_the_top_of_an_object() {
        let names = |content: &str| -> Vec<String> {
            let calls = tool_calls(content).unwrap();
            calls.iter().map(|c| c.name().to_owned()).collect()
        };
        // Not a string, or empty: no tool, and nothing inside the object is one.
        assert!(names(r#"{"request": 1, "x": {"request": "inner"}}"#).is_empty());
        assert!(names(r#"{"request": ["a"], "b": {"c": [1, {"d": null}]}}"#).is_empty());
        assert!(names(r#"{"request": ""}"#).is_empty());
        // Nested only: not a tool (a top-level object is read whole).
        assert!(names(r#"{"tool": {"request": "inner"}}"#).is_empty());
        // Given twice, the last (as a parsed object keeps it).
        assert_eq!(names(r#"{"request": "a", "request": "b"}"#), ["b"]);
        assert!(names(r#"{"request": "a", "request": false}"#).is_empty());
        // Escaped: decoded.
        assert_eq!(names(r#"{"request": "calc\u0075lator"}"#), ["calculator"]);
        // Unescaped, the name and the arguments borrow the content.
        let content = r#"x {"request": "add", "a": 1} y"#;
        let calls = tool_calls(content).unwrap();
        assert!(matches!(
            calls[0].arguments(),
            Cow::Borrowed(r#"{"request": "add", "a": 1}"#)
        ));
        // A cut-off object is not a tool, but one after it is.
        assert_eq!(names(r#"{"request": "a", "b": {"request": "c"}"#), ["c"]);
    }

    /// The search used to stop after 64 `{`, so a tool after 64 braces of code was
    /// silently lost.
    #[test]
    fn no_tool_is_lost_after_many_braces() {
        let code = "fn f() { x }\n".repeat(200);
        let content = format!(r#"{code} then {{"request": "search"}}"#);
        let calls = tool_calls(&content).unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name(), "search");
    }

    #[test]
    fn error_offsets_follow_lines() {
        let text = "{\n\"a\":\n  x";
        let e = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
        assert_eq!(&text[..error_offset(text, &e)], "{\n\"a\":\n  x");
    }
}
