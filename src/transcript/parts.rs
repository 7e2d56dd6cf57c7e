//! Content parts: a message's `content` given as a list, in OpenAI's shape (Chat
//! Completions and Responses) or as Anthropic's content blocks. The type names of the
//! two do not collide, so one reader takes both.
//!
//! A part's fields other than those read here (`cache_control`, `citations`,
//! `annotations`, `logprobs`, `signature`, media sources, ...) are the provider's
//! metadata: they carry nothing a stop condition reads and are not checked.

use std::borrow::Cow;

use serde::Deserialize;

use super::wire::{ArgumentsText, Listed, Str, StringOrList, failed, tool_call};
use crate::{Message, Role, ToolCall};

/// A message's `content`: a string, or a list of parts.
pub(super) type Content<'a, A> = StringOrList<'a, Part<'a, A>>;

impl<A> Listed for Part<'_, A> {
    const EXPECTING: &'static str = "a string, null or a list of content parts";
}

/// One content part: the union of the fields the known part types carry.
#[derive(Deserialize)]
// The bound by hand: serde would ask `A: Default` for `Option<A>`'s default.
#[serde(bound(deserialize = "A: Deserialize<'de> + ArgumentsText<'a>"))]
pub(super) struct Part<'a, A> {
    #[serde(rename = "type", default, borrow)]
    pub(super) kind: Option<Str<'a>>,
    /// `text`, `input_text`, `output_text`.
    #[serde(default, borrow)]
    pub(super) text: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) refusal: Option<Str<'a>>,
    /// A tool use's id and name (Anthropic `tool_use`, `server_tool_use`,
    /// `mcp_tool_use`).
    #[serde(default, borrow)]
    pub(super) id: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) name: Option<Str<'a>>,
    /// A tool use's arguments, kept as JSON text.
    #[serde(default)]
    pub(super) input: Option<A>,
    /// A tool result's call (`tool_result`, `mcp_tool_result`).
    #[serde(default, borrow)]
    pub(super) tool_use_id: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) content: Option<Content<'a, A>>,
    #[serde(default)]
    pub(super) is_error: Option<bool>,
}

// By hand: `A` needs no default.
impl<A> Default for Part<'_, A> {
    fn default() -> Self {
        Part {
            kind: None,
            text: None,
            refusal: None,
            id: None,
            name: None,
            input: None,
            tool_use_id: None,
            content: None,
            is_error: None,
        }
    }
}

/// What a message's content holds besides its text.
#[derive(Default)]
pub(super) struct Found<'a> {
    /// Anthropic `tool_use` blocks (and the server's and MCP's): the model's calls.
    pub(super) calls: Vec<ToolCall<'a>>,
    /// Anthropic `tool_result` blocks: each a tool's result, a message of its own.
    pub(super) results: Vec<Message<'a>>,
}

/// The part types that hold no text to classify and nothing else doneseq reads:
/// media, reasoning (the model's thoughts are not its answer), and the results of
/// tools the provider ran itself (their calls are read).
const SILENT: &[&str] = &[
    // OpenAI Chat Completions and Responses.
    "image_url",
    "input_audio",
    "file",
    "input_image",
    "input_file",
    "reasoning_text",
    "summary_text",
    // Anthropic.
    "image",
    "document",
    "search_result",
    "thinking",
    "redacted_thinking",
    "container_upload",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
];

/// The known part types, for the error on an unknown one.
const KNOWN: &str = "text, refusal, image_url, input_audio, file (OpenAI Chat \
    Completions); input_text, output_text, input_image, input_file (OpenAI Responses); \
    image, document, tool_use, tool_result, thinking, redacted_thinking, \
    server_tool_use, mcp_tool_use, mcp_tool_result and the server tools' results \
    (Anthropic)";

/// The text of a `content` (empty when there is none), with the calls and results its
/// parts hold added to `found`.
pub(super) fn text<'a, A: ArgumentsText<'a>>(
    content: Option<Content<'a, A>>,
    found: &mut Found<'a>,
) -> Result<Cow<'a, str>, String> {
    match content {
        None => Ok(Cow::Borrowed("")),
        Some(Content::Text(text)) => Ok(text),
        Some(Content::List(parts)) => read(parts, found),
    }
}

/// `list`, then `then`'s items: `then` moved where `list` is empty, not copied into a
/// new list (a message's tool calls: those of its `tool_calls` field, then those its
/// content blocks hold, which Anthropic's messages alone give).
pub(super) fn appended<T>(mut list: Vec<T>, mut then: Vec<T>) -> Vec<T> {
    if list.is_empty() {
        return then;
    }
    list.append(&mut then);
    list
}

/// A message's text with its refusal, what the model said instead of an answer: text
/// to classify, after any content (as refusal parts are), never dropped.
pub(super) fn with_refusal<'a>(
    content: Cow<'a, str>,
    refusal: Option<Cow<'a, str>>,
) -> Cow<'a, str> {
    match refusal.filter(|r| !r.is_empty()) {
        None => content,
        Some(refusal) if content.is_empty() => refusal,
        Some(refusal) => {
            let mut text = content.into_owned();
            text.push('\n');
            text.push_str(&refusal);
            Cow::Owned(text)
        }
    }
}

/// The text of a `content` that holds no tool uses or results (`what` it is, for the
/// error when it does: written only then).
pub(super) fn plain_text<'a, A: ArgumentsText<'a>>(
    content: Option<Content<'a, A>>,
    what: impl std::fmt::Display,
) -> Result<Cow<'a, str>, String> {
    let mut found = Found::default();
    let text = text(content, &mut found)?;
    if !found.calls.is_empty() || !found.results.is_empty() {
        return Err(format!("{what} holds tool uses or results"));
    }
    Ok(text)
}

/// The text of `parts` (text and refusal parts joined by newlines; one part's text is
/// borrowed), with the calls and results the parts hold added to `found`.
pub(super) fn read<'a, A: ArgumentsText<'a>>(
    parts: Vec<Part<'a, A>>,
    found: &mut Found<'a>,
) -> Result<Cow<'a, str>, String> {
    let mut text = None;
    for (i, mut part) in parts.into_iter().enumerate() {
        fold(i, &mut part, &mut text, found)?;
    }
    Ok(text.unwrap_or(Cow::Borrowed("")))
}

/// Part `i` of a content list added to what the parts before it made: its text
/// joined to `text`, its call or result added to `found`; the fields it reads are
/// taken out of `part`. (One part at a time, so that the scanner converts each part
/// as it reads it, and builds no list; by reference, so that the scanner fills one
/// part in place for all, where a part moved is a 200-byte copy.)
pub(super) fn fold<'a, A: ArgumentsText<'a>>(
    i: usize,
    part: &mut Part<'a, A>,
    text: &mut Option<Cow<'a, str>>,
    found: &mut Found<'a>,
) -> Result<(), String> {
    let Some(kind) = part.kind.take() else {
        return Err(format!("content part {i} has no \"type\""));
    };
    let piece = match &*kind.0 {
        kind if is_text(kind) => match part.text.take() {
            Some(t) => t.into_cow(),
            None => {
                return Err(format!(
                    "content part {i} of type \"{kind}\" has no \"text\""
                ));
            }
        },
        "refusal" => match part.refusal.take() {
            Some(t) => t.into_cow(),
            None => {
                return Err(format!(
                    "content part {i} of type \"refusal\" has no \"refusal\""
                ));
            }
        },
        kind @ ("tool_use" | "server_tool_use" | "mcp_tool_use") => {
            let name =
                part.name.take().filter(|n| !n.is_empty()).ok_or_else(|| {
                    format!("content part {i} of type \"{kind}\" has no \"name\"")
                })?;
            let call = tool_call(name.into_cow(), part.input.take(), part.id.take());
            push_first(&mut found.calls, call);
            return Ok(());
        }
        kind @ ("tool_result" | "mcp_tool_result") => {
            let what = format_args!("content part {i} of type \"{kind}\"");
            let content = plain_text(part.content.take(), what)?;
            let mut result = Message::new(Role::Agent, content);
            if part.is_error == Some(true) {
                result = failed(result, "the tool failed");
            }
            if let Some(id) = part.tool_use_id.take() {
                result = result.with_tool_call_id(id.into_cow());
            }
            push_first(&mut found.results, result);
            return Ok(());
        }
        kind if is_silent(kind) => return Ok(()),
        other => {
            return Err(format!(
                "content part {i} has an unknown type \"{other}\" (expected one of {KNOWN})"
            ));
        }
    };
    *text = Some(join(text.take(), piece));
    Ok(())
}

/// Whether parts of type `kind` hold nothing doneseq reads (media, reasoning, the
/// results of the provider's own tools), in OpenAI's and Anthropic's shapes.
pub(super) fn is_silent(kind: &str) -> bool {
    SILENT.contains(&kind)
}

/// Whether parts of type `kind` are text (their `text` is the message's).
pub(super) fn is_text(kind: &str) -> bool {
    matches!(kind, "text" | "input_text" | "output_text")
}

/// The text of the parts so far with one more part's: joined by a newline, the first
/// part's text borrowed as it is.
#[inline]
pub(super) fn join<'a>(text: Option<Cow<'a, str>>, piece: Cow<'a, str>) -> Cow<'a, str> {
    join_with(text, piece, '\n')
}

/// [`join`] by `separator` (a framework that joins its parts otherwise).
#[inline]
pub(super) fn join_with<'a>(
    text: Option<Cow<'a, str>>,
    piece: Cow<'a, str>,
    separator: char,
) -> Cow<'a, str> {
    match text {
        None => piece,
        Some(mut joined) => {
            let t = joined.to_mut();
            t.push(separator);
            t.push_str(&piece);
            joined
        }
    }
}

/// Pushes `item` onto `list`, which most often holds one or two: allocated with room
/// for a few at its first item, where growing from none costs more than allocating
/// (Vec's growth path, out of line, for every list's first item).
fn push_first<T>(list: &mut Vec<T>, item: T) {
    if list.capacity() == 0 {
        *list = Vec::with_capacity(2);
    }
    list.push(item);
}
