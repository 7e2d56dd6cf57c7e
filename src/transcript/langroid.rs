//! Langroid-style tools: JSON objects with a `"request"` key inside the content.

use serde_json::Value;

use crate::ToolCall;

/// The most `{` a message's content is tried at, so that a pathological content
/// (`{{{{...`) costs a bounded number of JSON parse attempts.
const MAX_ATTEMPTS: usize = 64;

/// Every top-level JSON object in `content` whose `"request"` is a non-empty string,
/// as a tool call named by it (the whole object is its arguments), in order. As
/// Langroid, the objects may be embedded in prose.
pub(super) fn tool_calls(content: &str) -> Vec<ToolCall> {
    let mut calls = Vec::new();
    let mut from = 0;
    for _ in 0..MAX_ATTEMPTS {
        let Some(offset) = content[from..].find('{') else {
            break;
        };
        let start = from + offset;
        let mut stream = serde_json::Deserializer::from_str(&content[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(Value::Object(object))) => {
                let end = start + stream.byte_offset();
                if let Some(Value::String(name)) = object.get("request") {
                    if !name.is_empty() {
                        calls.push(ToolCall::new(name.clone(), &content[start..end]));
                    }
                }
                from = end;
            }
            _ => from = start + 1,
        }
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_tools_in_prose() {
        let calls = tool_calls(
            r#"Sure. {"request": "calculator", "x": "6*7"} and {"a": 1} {"request": "search"}"#,
        );
        let names: Vec<&str> = calls.iter().map(ToolCall::name).collect();
        assert_eq!(names, ["calculator", "search"]);
        assert_eq!(
            calls[0].arguments(),
            r#"{"request": "calculator", "x": "6*7"}"#
        );
        assert!(tool_calls("{ not json {{").is_empty());
        assert!(tool_calls(&"{".repeat(100_000)).is_empty());
    }
}
