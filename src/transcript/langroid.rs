//! Langroid-style tools: JSON objects with a `"request"` key inside the content.

use serde::de::IgnoredAny;
use serde_json::Value;

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
/// as a tool call named by it (the whole object is its arguments), in order. As
/// Langroid, the objects may be embedded in prose.
///
/// # Errors
///
/// The search would parse more than [`MAX_TOOL_SEARCH_WORK`] allows.
pub(super) fn tool_calls(content: &str) -> Result<Vec<ToolCall<'static>>, String> {
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
        // First only where the JSON ends (no allocation: most attempts fail), then the
        // object itself.
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<IgnoredAny>();
        match stream.next() {
            Some(Ok(_)) => {
                let end = start + stream.byte_offset();
                spent += end - start;
                match serde_json::from_str::<Value>(&content[start..end]) {
                    Ok(Value::Object(object)) => {
                        if let Some(Value::String(name)) = object.get("request") {
                            if !name.is_empty() {
                                calls.push(ToolCall::new(
                                    name.clone(),
                                    content[start..end].to_owned(),
                                ));
                            }
                        }
                        from = end;
                    }
                    // Deeper than serde_json builds values: not a tool, but one nested
                    // in it may be.
                    _ => from = start + 1,
                }
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
        let e = serde_json::from_str::<Value>(text).unwrap_err();
        assert_eq!(&text[..error_offset(text, &e)], "{\n\"a\":\n  x");
    }
}
