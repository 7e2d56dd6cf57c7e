//! The wire form of one transcript message: the union of doneseq's JSONL schema and
//! OpenAI's chat message, so one parser reads both.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use crate::{Message, Role, ToolCall, Usage};

/// One message as it appears in a log line or array element.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Line {
    role: String,
    #[serde(default)]
    content: Option<Content>,
    #[serde(default)]
    responder: Option<String>,
    /// OpenAI's participant name; the responder when `responder` is absent.
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<Call>>,
    /// OpenAI's legacy single call.
    #[serde(default)]
    function_call: Option<Function>,
    /// OpenAI: which call a `tool` message answers (read by `tool(x, executed)`).
    #[serde(default)]
    tool_call_id: Option<String>,
    /// Named numbers (scores, probabilities) for stop conditions to read.
    #[serde(default)]
    metrics: Option<std::collections::BTreeMap<String, f64>>,
    /// Milliseconds since the run started when the message was recorded.
    #[serde(default)]
    elapsed_ms: Option<u64>,
    #[serde(default)]
    usage: Option<UsageWire>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    confidence: Option<f64>,
    #[serde(default)]
    reward: Option<f64>,
    #[serde(default)]
    no_response: bool,
    /// A stop message (AutoGen's `StopMessage`): its speaker ends the conversation.
    #[serde(default)]
    stop: bool,
    /// A handoff to this agent (AutoGen's `HandoffMessage`'s `target`).
    #[serde(default)]
    handoff: Option<String>,
    /// On a tool's result: the tool's name (read by `tool(x, executed)` when the
    /// request is not in view).
    #[serde(default)]
    tool_name: Option<String>,
    /// Free-form data for the log's own use; doneseq does not read it.
    #[serde(default)]
    #[allow(dead_code)]
    metadata: Option<IgnoredAny>,
    /// OpenAI: what the model said instead of an answer, read as text.
    #[serde(default)]
    refusal: Option<String>,
    /// OpenAI fields that carry nothing doneseq classifies.
    #[serde(default)]
    #[allow(dead_code)]
    annotations: Option<IgnoredAny>,
    #[serde(default)]
    #[allow(dead_code)]
    audio: Option<IgnoredAny>,
}

enum Content {
    Text(String),
    Parts(Vec<Value>),
}

// By hand, not `untagged`: an untagged enum buffers the value and, on a mismatch,
// says only "did not match any variant".
impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Content, D::Error> {
        struct ContentVisitor;
        impl<'de> serde::de::Visitor<'de> for ContentVisitor {
            type Value = Content;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string, null or a list of content parts")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Content, E> {
                Ok(Content::Text(text.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Content, E> {
                Ok(Content::Text(text))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Content, A::Error> {
                let mut parts = Vec::new();
                while let Some(part) = seq.next_element()? {
                    parts.push(part);
                }
                Ok(Content::Parts(parts))
            }
        }
        deserializer.deserialize_any(ContentVisitor)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Call {
    #[serde(default)]
    id: Option<String>,
    #[serde(default, rename = "type")]
    #[allow(dead_code)]
    kind: Option<IgnoredAny>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(default)]
    function: Option<Function>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Function {
    name: String,
    #[serde(default)]
    arguments: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UsageWire {
    #[serde(default, alias = "prompt_tokens")]
    input_tokens: u64,
    #[serde(default, alias = "completion_tokens")]
    output_tokens: u64,
    #[serde(default)]
    #[allow(dead_code)]
    total_tokens: Option<IgnoredAny>,
}

/// Arguments as JSON text: OpenAI sends a string of JSON, our schema an object.
fn arguments_text(arguments: Option<Value>) -> String {
    match arguments {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text,
        Some(other) => other.to_string(),
    }
}

impl Line {
    /// The message this line describes, or what is wrong with it.
    pub(super) fn into_message(self) -> Result<Message, String> {
        let role: Role = self.role.parse().map_err(|e| format!("{e}"))?;
        let mut content = match self.content {
            None => String::new(),
            Some(Content::Text(text)) => text,
            Some(Content::Parts(parts)) => parts_text(&parts)?,
        };
        // A refusal is what the model said instead of an answer: text to classify,
        // after any content (as refusal parts are), never dropped.
        if let Some(refusal) = self.refusal.filter(|r| !r.is_empty()) {
            if !content.is_empty() {
                content.push('\n');
            }
            content.push_str(&refusal);
        }
        let has_calls =
            self.tool_calls.as_ref().is_some_and(|c| !c.is_empty()) || self.function_call.is_some();
        let mut message = if self.no_response {
            if !content.is_empty() || has_calls {
                return Err(
                    "a message with \"no_response\": true has content or tool calls".into(),
                );
            }
            Message::no_response(role)
        } else {
            Message::new(role, content)
        };
        if let Some(r) = self.responder.or(self.name) {
            message = message.with_responder(r);
        }
        for (i, call) in self.tool_calls.into_iter().flatten().enumerate() {
            let (name, arguments) = match (call.name, call.function) {
                (Some(name), None) => (name, call.arguments),
                (None, Some(f)) if call.arguments.is_none() => (f.name, f.arguments),
                (None, None) => return Err(format!("tool call {i} has no name")),
                _ => {
                    return Err(format!(
                        "tool call {i} has both \"name\"/\"arguments\" and \"function\""
                    ));
                }
            };
            if name.is_empty() {
                return Err(format!("tool call {i} has an empty name"));
            }
            let mut tool = ToolCall::new(name, arguments_text(arguments));
            if let Some(id) = call.id {
                tool = tool.with_id(id);
            }
            message = message.with_tool_call(tool);
        }
        if let Some(f) = self.function_call {
            if f.name.is_empty() {
                return Err("\"function_call\" has an empty name".into());
            }
            message = message.with_tool_call(ToolCall::new(f.name, arguments_text(f.arguments)));
        }
        if let Some(u) = self.usage {
            message = message.with_usage(Usage {
                input_tokens: u.input_tokens,
                output_tokens: u.output_tokens,
            });
        }
        if let Some(e) = self.error {
            message = message.with_error(e);
        }
        if let Some(c) = self.confidence {
            message = message.with_confidence(c);
        }
        if let Some(r) = self.reward {
            message = message.with_reward(r);
        }
        // A map: its names are distinct.
        message = message.with_distinct_metrics(self.metrics.into_iter().flatten());
        if let Some(id) = self.tool_call_id {
            message = message.with_tool_call_id(id);
        }
        if let Some(ms) = self.elapsed_ms {
            message = message.with_elapsed(std::time::Duration::from_millis(ms));
        }
        if self.stop {
            message = message.as_stop();
        }
        match self.tool_name {
            Some(name) if name.is_empty() => return Err("\"tool_name\" is empty".into()),
            Some(name) => message = message.with_tool_name(name),
            None => {}
        }
        match self.handoff {
            Some(target) if target.is_empty() => {
                return Err("\"handoff\" names no agent".into());
            }
            Some(target) => message = message.with_handoff(target),
            None => {}
        }
        Ok(message)
    }
}

/// The text of OpenAI content parts: `text` and `refusal` parts joined by newlines;
/// media parts (`image_url`, `input_audio`, `file`) hold no text to classify.
fn parts_text(parts: &[Value]) -> Result<String, String> {
    let mut texts = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let kind = part.get("type").and_then(Value::as_str);
        match kind {
            Some(kind @ ("text" | "refusal")) => match part.get(kind).and_then(Value::as_str) {
                Some(text) => texts.push(text),
                None => {
                    return Err(format!(
                        "content part {i} of type \"{kind}\" has no \"{kind}\" string"
                    ));
                }
            },
            Some("image_url" | "input_audio" | "file") => {}
            Some(other) => return Err(format!("content part {i} has an unknown type \"{other}\"")),
            None => return Err(format!("content part {i} has no \"type\"")),
        }
    }
    Ok(texts.join("\n"))
}
