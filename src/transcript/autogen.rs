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

/// The types of the model's tool calls and of their results.
pub(super) const REQUEST: &str = "ToolCallRequestEvent";
pub(super) const EXECUTION: &str = "ToolCallExecutionEvent";

/// The types of messages whose content is not text.
const MULTIMODAL: &str = "MultiModalMessage";
const STRUCTURED: &str = "StructuredMessage";

/// One message or event. `id`, `metadata`, `created_at`, a handoff's `context`, a
/// summary's `tool_calls` and `results` (the events before it hold them) and a
/// structured message's `format_string` are not read. Read by serde where the fast
/// path's scanner is not sure of the line, and converted by [`read`] (the scanner
/// builds the messages of the common kinds itself, through the same [`request`],
/// [`result`] and [`step`]).
#[derive(Deserialize)]
pub(super) struct AgentMessage<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Str<'a>,
    #[serde(borrow)]
    pub(super) source: Str<'a>,
    /// Its JSON text, read once the type says what it holds.
    #[serde(default, borrow, deserialize_with = "super::wire::optional_json_text")]
    pub(super) content: Option<&'a str>,
    #[serde(default)]
    pub(super) models_usage: Option<ProviderUsage>,
    /// A handoff's target.
    #[serde(default, borrow)]
    pub(super) target: Option<Str<'a>>,
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
pub(super) fn read<'a>(
    message: AgentMessage<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let kind = &*message.kind.0;
    let content = message.content.unwrap_or("null");
    let usage = message.models_usage.map(ProviderUsage::into_usage);
    let source = message.source.0;
    match kind {
        REQUEST => {
            let calls = read_content(content, super::fast::function_calls, |c| {
                // Converted where they are (a call and a tool call are the same size:
                // the list is not allocated again).
                parse::<Vec<FunctionCall<'a>>>(c)?
                    .into_iter()
                    .map(|call| {
                        tool_call(call).map_err(|problem| Failure::message(within, problem))
                    })
                    .collect()
            })?;
            out.push(request(calls, source, usage));
        }
        EXECUTION => {
            let results = read_content(content, super::fast::execution_results, |c| {
                parse::<Vec<ExecutionResult<'a>>>(c).map(Results::from_vec)
            })?;
            for one in results {
                out.push(result(one, source.clone()));
            }
        }
        kind if is_text_step(kind) => {
            let text = read_content(content, super::fast::json_string, |c| {
                parse::<Str<'a>>(c).map(Str::into_cow)
            })?;
            out.push(step(
                kind,
                text,
                source,
                usage,
                message.target.map(Str::into_cow),
            ));
        }
        MULTIMODAL => {
            let mut text = String::new();
            for piece in parse::<Vec<Piece<'a>>>(content)? {
                match piece {
                    Piece::Text(t) => text.push_str(&t),
                    Piece::Image(_) => text.push_str(" [image]"),
                }
            }
            out.push(chat(Cow::Owned(text), source, usage));
        }
        kind if kind.starts_with(STRUCTURED) => {
            // Its model text is the content's JSON.
            out.push(chat(Cow::Borrowed(content), source, usage));
        }
        kind if is_silent_event(kind) => {}
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

/// Whether messages of type `kind` are chat messages whose content is text, read by
/// [`step`] (any type ending in `Message` but the multimodal and structured ones).
pub(super) fn is_text_step(kind: &str) -> bool {
    kind.ends_with("Message") && kind != MULTIMODAL && !kind.starts_with(STRUCTURED)
}

/// Whether messages of type `kind` are events that are not steps (any type ending in
/// `Event` but the tool calls' and their results').
pub(super) fn is_silent_event(kind: &str) -> bool {
    kind.ends_with("Event") && kind != REQUEST && kind != EXECUTION
}

/// A `ToolCallRequestEvent`'s message: the model's calls.
pub(super) fn request<'a>(
    calls: Vec<ToolCall<'a>>,
    source: Cow<'a, str>,
    usage: Option<crate::Usage>,
) -> Message<'a> {
    let mut request = Message::new(Role::Llm, "").with_responder(source);
    request.tool_calls = calls;
    request.usage = usage;
    request
}

/// The message of one result of a `ToolCallExecutionEvent`.
pub(super) fn result<'a>(result: ExecutionResult<'a>, source: Cow<'a, str>) -> Message<'a> {
    let text = result.content.into_cow();
    // Set in place (a message moved through each builder is a 136-byte copy).
    let mut step = Message::new(Role::Agent, text);
    step.responder = Some(source);
    if let Some(name) = result.name.filter(|n| !n.is_empty()) {
        step.rare().tool_name = Some(name.into_cow());
    }
    if let Some(id) = result.call_id.filter(|n| !n.is_empty()) {
        step.tool_call_id = Some(id.into_cow());
    }
    if result.is_error {
        step = failed(step, "the tool failed");
    }
    step
}

/// The message of a chat message of type `kind` whose content is text ([`is_text_step`]):
/// a stop message stops, a handoff names its target.
pub(super) fn step<'a>(
    kind: &str,
    text: Cow<'a, str>,
    source: Cow<'a, str>,
    usage: Option<crate::Usage>,
    target: Option<Cow<'a, str>>,
) -> Message<'a> {
    let step = chat(text, source, usage);
    if kind == "StopMessage" {
        return step.as_stop();
    }
    match target.filter(|t| kind == "HandoffMessage" && !t.is_empty()) {
        Some(target) => step.with_handoff(target),
        None => step,
    }
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

/// A message's content (its JSON text): as the scanner reads it, else as serde reads
/// it (the error, if any, is serde's).
fn read_content<'a, T>(
    content: &'a str,
    scan: fn(&'a str) -> Option<T>,
    parse: impl FnOnce(&'a str) -> Result<T, Failure<'a>>,
) -> Result<T, Failure<'a>> {
    match scan(content) {
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
    each::<AgentMessage<'a>>(result.messages, |m, text, out| read(m, text, out), out)
}
