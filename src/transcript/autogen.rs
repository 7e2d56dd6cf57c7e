//! AutoGen AgentChat messages and events as `model_dump()` writes them, one by one or
//! in a `TaskResult`'s `messages`. The mapping is the one the Python package's AutoGen
//! adapter uses when it watches a live team.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::record::{Failure, Out, each, parse};
use super::wire::{ProviderUsage, RawArguments, Str, failed};
use crate::{Message, Role, ToolCall};

/// The source AutoGen gives the task's own messages.
const TASK_SOURCE: &str = "user";

/// One message or event. `id`, `metadata`, `created_at`, a handoff's `context`, a
/// summary's `tool_calls` and `results` (the events before it hold them) and a
/// structured message's `format_string` are not read. Filled by serde, or by the
/// fast path's scanner (in a default one), and converted by [`read`] either way.
#[derive(Default, Deserialize)]
pub(super) struct AgentMessage<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Str<'a>,
    #[serde(borrow)]
    pub(super) source: Str<'a>,
    /// Its JSON text, read once the type says what it holds.
    #[serde(default, borrow, deserialize_with = "json_text")]
    pub(super) content: Option<&'a str>,
    #[serde(default)]
    pub(super) models_usage: Option<ProviderUsage>,
    /// A handoff's target.
    #[serde(default, borrow)]
    pub(super) target: Option<Str<'a>>,
    /// The content as the fast path's scanner read it on its way (the type comes
    /// after it), where that is what the type says it holds; `content` is read
    /// otherwise.
    #[serde(skip)]
    pub(super) scanned: Option<Scanned<'a>>,
}

/// A message's content, read by the fast path's scanner before it knows the type: a
/// string, or a list read as the calls or results its first key suggests.
pub(super) enum Scanned<'a> {
    Text(Cow<'a, str>),
    /// The calls, as [`tool_call`] makes them.
    Calls(Vec<ToolCall<'a>>),
    Results(Results<'a>),
}

/// A tool execution's results: most often one, kept in place (no allocation for it).
pub(super) type Results<'a> = smallvec::SmallVec<[ExecutionResult<'a>; 1]>;

/// A value's JSON text (`None` for `null`).
fn json_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de str>, D::Error> {
    Ok(Option::<&'de RawValue>::deserialize(d)?.map(RawValue::get))
}

#[derive(Deserialize)]
pub(super) struct FunctionCall<'a> {
    #[serde(default, borrow)]
    pub(super) id: Option<Str<'a>>,
    #[serde(borrow)]
    pub(super) name: Str<'a>,
    #[serde(default)]
    pub(super) arguments: Option<RawArguments<'a>>,
}

#[derive(Deserialize)]
pub(super) struct ExecutionResult<'a> {
    #[serde(borrow)]
    pub(super) content: Str<'a>,
    #[serde(default, borrow)]
    pub(super) name: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) call_id: Option<Str<'a>>,
    #[serde(default)]
    pub(super) is_error: bool,
}

/// A multimodal message's part: text, or an image (any object).
#[derive(Deserialize)]
#[serde(untagged)]
enum Piece<'a> {
    Text(#[serde(borrow)] Cow<'a, str>),
    Image(serde::de::IgnoredAny),
}

/// The messages one AutoGen message or event stands for: none for an event that is
/// not a step (thoughts, streaming chunks, memory queries, speaker selection, code
/// generation and execution, input requests), one per result of a tool execution.
/// (By reference, its fields taken: the message is filled where it is read, and a
/// move of it is a copy.)
pub(super) fn read<'a>(
    message: &mut AgentMessage<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let kind = std::mem::take(&mut message.kind.0);
    let kind = &*kind;
    let content = message.content.unwrap_or("null");
    let usage = message.models_usage.take().map(ProviderUsage::into_usage);
    let source = std::mem::take(&mut message.source.0);
    match kind {
        "ToolCallRequestEvent" => {
            let scanned = match message.scanned.take() {
                Some(Scanned::Calls(calls)) => Some(calls),
                _ => None,
            };
            let calls = read_content(scanned, content, super::fast::function_calls, |c| {
                // Converted where they are (a call and a tool call are the same size:
                // the list is not allocated again).
                parse::<Vec<FunctionCall<'a>>>(c)?
                    .into_iter()
                    .map(|call| {
                        tool_call(call).map_err(|problem| Failure::message(within, problem))
                    })
                    .collect()
            })?;
            let mut request = Message::new(Role::Llm, "").with_responder(source);
            request.tool_calls = calls;
            request.usage = usage;
            out.push(request);
        }
        "ToolCallExecutionEvent" => {
            let scanned = match message.scanned.take() {
                Some(Scanned::Results(results)) => Some(results),
                _ => None,
            };
            let results = read_content(scanned, content, super::fast::execution_results, |c| {
                parse::<Vec<ExecutionResult<'a>>>(c).map(Results::from_vec)
            })?;
            for result in results {
                let text = result.content.into_cow();
                let mut step = Message::new(Role::Agent, text).with_responder(source.clone());
                if let Some(name) = result.name.filter(|n| !n.is_empty()) {
                    step = step.with_tool_name(name.into_cow());
                }
                if let Some(id) = result.call_id.filter(|n| !n.is_empty()) {
                    step = step.with_tool_call_id(id.into_cow());
                }
                if result.is_error {
                    step = failed(step, "the tool failed");
                }
                out.push(step);
            }
        }
        "MultiModalMessage" => {
            let mut text = String::new();
            for piece in parse::<Vec<Piece<'a>>>(content)? {
                match piece {
                    Piece::Text(t) => text.push_str(&t),
                    Piece::Image(_) => text.push_str(" [image]"),
                }
            }
            out.push(chat(Cow::Owned(text), source, usage));
        }
        kind if kind.starts_with("StructuredMessage") => {
            // Its model text is the content's JSON.
            out.push(chat(Cow::Borrowed(content), source, usage));
        }
        kind if kind.ends_with("Message") => {
            let scanned = match message.scanned.take() {
                Some(Scanned::Text(text)) => Some(text),
                _ => None,
            };
            let text = read_content(scanned, content, super::fast::json_string, |c| {
                parse::<Str<'a>>(c).map(Str::into_cow)
            })?;
            let mut step = chat(text, source, usage);
            if kind == "StopMessage" {
                step = step.as_stop();
            } else if kind == "HandoffMessage" {
                if let Some(target) = message.target.take().filter(|t| !t.is_empty()) {
                    step = step.with_handoff(target.into_cow());
                }
            }
            out.push(step);
        }
        kind if kind.ends_with("Event") => {}
        other => {
            return Err(Failure::message(
                within,
                format!(
                    "unknown AutoGen message type \"{other}\" (expected a chat message type ending in Message, or an event type ending in Event)"
                ),
            ));
        }
    }
    Ok(())
}

/// The tool call an AutoGen `FunctionCall` is (its name, arguments and id), or what
/// is wrong with it.
pub(super) fn tool_call(call: FunctionCall<'_>) -> Result<ToolCall<'_>, &'static str> {
    if call.name.is_empty() {
        return Err("a tool call has an empty name");
    }
    Ok(super::wire::tool_call(
        call.name.into_cow(),
        call.arguments,
        call.id,
    ))
}

/// A message's content: as the scanner read it on its way where that is what the type
/// says it holds (`scanned`), else as the scanner reads it now, else as serde reads
/// it (the error, if any, is serde's).
fn read_content<'a, T>(
    scanned: Option<T>,
    content: &'a str,
    scan: fn(&'a str) -> Option<T>,
    parse: impl FnOnce(&'a str) -> Result<T, Failure<'a>>,
) -> Result<T, Failure<'a>> {
    match scanned.or_else(|| scan(content)) {
        Some(value) => Ok(value),
        None => parse(content),
    }
}

/// A chat message: the task's (source `user`) is the user's, any other an agent's
/// reply, which doneseq calls the LLM's.
fn chat<'a>(text: Cow<'a, str>, source: Cow<'a, str>, usage: Option<crate::Usage>) -> Message<'a> {
    let role = if source == TASK_SOURCE {
        Role::User
    } else {
        Role::Llm
    };
    let mut message = Message::new(role, text).with_responder(source);
    message.usage = usage;
    message
}

/// A `TaskResult`: its messages; `stop_reason` says why AutoGen stopped and is not a
/// message.
#[derive(Deserialize)]
pub(super) struct TaskResult<'a> {
    #[serde(borrow)]
    messages: Vec<&'a RawValue>,
}

/// The messages of a task result.
pub(super) fn read_result<'a>(
    result: TaskResult<'a>,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    each::<AgentMessage<'a>>(
        result.messages,
        |mut m, text, out| read(&mut m, text, out),
        out,
    )
}
