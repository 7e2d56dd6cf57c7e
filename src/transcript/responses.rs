//! OpenAI Responses API: input and output items (what the OpenAI Agents SDK's
//! `to_input_list()` gives), response objects, and requests.
//!
//! One model call's output is several items (reasoning, a message, function calls):
//! consecutive model items are one model turn, one message, as a chat log has it.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::parts::{self, Content};
use super::record::{Context, Failure, Out, each, parse};
use super::wire::{ProviderUsage, RawArguments, Str, arguments_of};
use crate::message::CallArguments;
use crate::{Message, Role, ToolCall};

/// One item: the union of the fields of the item types read. Other fields (`id` of
/// a message, `status`, `summary`, `encrypted_content`, ...) are not read.
#[derive(Deserialize, Default)]
pub(super) struct Item<'a> {
    /// Absent on an input message given as `{"role", "content"}`.
    #[serde(rename = "type", default, borrow)]
    pub(super) kind: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) role: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) content: Option<Content<'a, RawArguments<'a>>>,
    /// A function's (or MCP tool's, or custom tool's) name.
    #[serde(default, borrow)]
    pub(super) name: Option<Str<'a>>,
    /// A function call's arguments (a string of JSON).
    #[serde(default)]
    pub(super) arguments: Option<RawArguments<'a>>,
    /// A built-in tool's action, or a custom tool's input.
    #[serde(default)]
    pub(super) action: Option<RawArguments<'a>>,
    #[serde(default)]
    pub(super) input: Option<RawArguments<'a>>,
    /// The code interpreter's code, the file search's queries.
    #[serde(default)]
    pub(super) code: Option<RawArguments<'a>>,
    #[serde(default)]
    pub(super) queries: Option<RawArguments<'a>>,
    #[serde(default, borrow)]
    pub(super) call_id: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) id: Option<Str<'a>>,
    /// A tool's output: a string, or a list of content parts.
    #[serde(default, borrow)]
    pub(super) output: Option<Content<'a, RawArguments<'a>>>,
    /// An MCP call's error.
    #[serde(default, borrow)]
    pub(super) error: Option<Str<'a>>,
}

/// The model turn being assembled from consecutive model items, its texts borrowed
/// for `'t`: the reader's own, kept from one record to the next, owns them
/// (`'static`); one assembled while its first line is at hand borrows from it.
#[derive(Debug, Default)]
pub(super) struct Turn<'t> {
    open: Option<Message<'t>>,
}

impl<'t> Turn<'t> {
    /// Ends the turn, its message (if one is open) taken.
    pub(super) fn take(&mut self) -> Option<Message<'t>> {
        self.open.take()
    }

    /// Ends the turn: its message, if one is open, goes to `out`.
    pub(super) fn close<'a>(&mut self, out: &mut Out<'a>)
    where
        't: 'a,
    {
        if let Some(message) = self.open.take() {
            out.push(message);
        }
    }

    /// Puts back the turn `taken` (as [`Turn::take`] gave it) by a record that then
    /// failed to read.
    pub(super) fn reopen(&mut self, taken: Option<Message<'t>>) {
        self.open = taken;
    }

    /// Whether a model turn is open.
    pub(super) fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// The open turn's usage, where a log gives a call's usage after its items
    /// (Codex's); nothing where no turn is open.
    pub(super) fn set_usage(&mut self, usage: crate::Usage) {
        if let Some(message) = &mut self.open {
            message.usage = Some(usage);
        }
    }

    /// The open turn's message, opened if none is.
    fn message(&mut self) -> &mut Message<'t> {
        self.open.get_or_insert_with(|| Message::new(Role::Llm, ""))
    }

    /// Adds `text` to the turn's message, after a newline if it has text already.
    fn add_text(&mut self, text: Cow<'t, str>) {
        if text.is_empty() {
            return;
        }
        let content = &mut self.message().content;
        if content.is_empty() {
            // The first text: kept as it is (borrowed, where the turn borrows).
            *content = text;
            return;
        }
        let content = content.to_mut();
        content.push('\n');
        content.push_str(&text);
    }
}

/// How the texts of an item borrowed for `'a` join a turn that borrows for `'t`:
/// as they are ([`Borrow`]: the item's line outlives the turn), or copied ([`Own`]).
pub(super) trait Keep<'a, 't> {
    /// `text`, for the turn.
    fn keep(text: Cow<'a, str>) -> Cow<'t, str>;
    /// A call's `arguments`, for the turn.
    fn keep_arguments(arguments: CallArguments<'a>) -> CallArguments<'t>;
}

/// The item's line outlives the turn: its texts join the turn as they are.
pub(super) enum Borrow {}

impl<'a: 't, 't> Keep<'a, 't> for Borrow {
    fn keep(text: Cow<'a, str>) -> Cow<'t, str> {
        text
    }

    fn keep_arguments(arguments: CallArguments<'a>) -> CallArguments<'t> {
        arguments
    }
}

/// The item's line is gone before the turn ends: its texts join the turn copied (a
/// text decoded from escapes is owned already, and moved).
pub(super) enum Own {}

impl<'a, 't> Keep<'a, 't> for Own {
    fn keep(text: Cow<'a, str>) -> Cow<'t, str> {
        Cow::Owned(text.into_owned())
    }

    fn keep_arguments(arguments: CallArguments<'a>) -> CallArguments<'t> {
        arguments.into_owned()
    }
}

/// The item types of a tool's output: each ends the model turn (first thing read).
pub(super) const OUTPUTS: &[&str] = &[
    "function_call_output",
    "custom_tool_call_output",
    "computer_call_output",
    "local_shell_call_output",
    "shell_call_output",
    "apply_patch_call_output",
];

/// The item types that are steps of nobody's: MCP tool listings and approvals,
/// references to earlier items, compacted history.
const NOT_STEPS: &[&str] = &[
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "item_reference",
    "compaction",
];

/// The item types read, for the error on an unknown one.
const KNOWN: &str = "message, function_call, function_call_output, reasoning, \
    custom_tool_call(_output), computer_call(_output), local_shell_call(_output), \
    shell_call(_output), apply_patch_call(_output), web_search_call, file_search_call, \
    code_interpreter_call, image_generation_call, mcp_call, mcp_list_tools, \
    mcp_approval_request, mcp_approval_response, item_reference";

/// Reads one item into the turn, or into `out` (an item from outside the model ends
/// the turn first).
pub(super) fn read_item<'a>(
    item: &mut Item<'a>,
    within: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    read_into(item, &mut cx.responses, out).map_err(|m| Failure::message(within, m))
}

/// [`item_into`] for the reader's own turn: an item from outside the model ends the
/// turn, whose message goes to `out` before the item's.
fn read_into<'a>(
    item: &mut Item<'a>,
    turn: &mut Turn<'static>,
    out: &mut Out<'a>,
) -> Result<(), String> {
    let start = out.len();
    item_into::<Own>(item, turn, out)?;
    if out.len() > start
        && let Some(message) = turn.take()
    {
        out.insert(start, message);
    }
    Ok(())
}

/// Reads one item into `turn` (its texts kept as `K` keeps them), or into `out`: an
/// item from outside the model (a message of another role, a tool's output) is a
/// message of its own, and ends the turn, which the caller closes before it. An item
/// that fails to read leaves the turn as it was. (The item by reference, its fields
/// taken: it is a large struct, and each move of it a copy.)
pub(super) fn item_into<'a, 't, K: Keep<'a, 't>>(
    item: &mut Item<'a>,
    turn: &mut Turn<'t>,
    out: &mut Out<'a>,
) -> Result<(), String> {
    let kind = item.kind.as_ref().map_or("message", |k| &*k.0);
    match kind {
        "message" => {
            let role = item.role.as_ref().ok_or("a message item has no \"role\"")?;
            let role: Role = role.0.parse().map_err(|e| format!("{e}"))?;
            let text = parts::plain_text(item.content.take(), "a message item")?;
            if role == Role::Llm {
                turn.add_text(K::keep(text));
            } else {
                out.push(Message::new(role, text));
            }
        }
        "reasoning" => {
            // The model's thoughts: part of its turn, not its answer.
            turn.message();
        }
        kind if OUTPUTS.contains(&kind) => {
            // Checked before its message is made: an item that fails leaves the turn
            // open.
            let text = parts::plain_text(
                item.output.take(),
                format_args!("the output of a {kind} item"),
            )?;
            let Some(id) = item.call_id.take().or(item.id.take()) else {
                return Err(format!("a {kind} item has no \"call_id\""));
            };
            out.push(Message::new(Role::Agent, text).with_tool_call_id(id.into_cow()));
        }
        kind if NOT_STEPS.contains(&kind) => {}
        kind if kind.ends_with("_call") => {
            // A function call, or a call of a built-in tool (named by its type), or of
            // an MCP server's tool (named by `name`).
            let name = match (kind, item.name.take()) {
                ("function_call" | "custom_tool_call" | "mcp_call", Some(name))
                    if !name.is_empty() =>
                {
                    name.into_cow()
                }
                ("function_call" | "custom_tool_call" | "mcp_call", _) => {
                    return Err(format!("a {kind} item has no \"name\""));
                }
                (kind, _) => Cow::Owned(kind.trim_end_matches("_call").to_owned()),
            };
            // The first of them there is (taken one by one: a list of all five
            // would be built and dropped for every call).
            let arguments = arguments_of(
                item.arguments
                    .take()
                    .or_else(|| item.input.take())
                    .or_else(|| item.action.take())
                    .or_else(|| item.code.take())
                    .or_else(|| item.queries.take()),
            );
            let mut call = ToolCall::with_arguments(K::keep(name), K::keep_arguments(arguments));
            if let Some(id) = item.call_id.take().or(item.id.take()) {
                call = call.with_id(K::keep(id.into_cow()));
            }
            let message = turn.message();
            message.tool_calls.push(call);
            if let Some(error) = item.error.take().filter(|e| !e.is_empty()) {
                message.rare().error = Some(K::keep(error.0));
            }
        }
        other => return Err(unknown_type(other)),
    }
    Ok(())
}

/// Why an item of type `kind` is not read: an event of a streamed answer (the
/// Responses API's, `response.*`, or Anthropic's, whose events have a `type` too and
/// so come here) is a piece of a step, and the log should hold what they add up to;
/// any other type is unknown.
#[cold]
fn unknown_type(kind: &str) -> String {
    const ANTHROPIC_EVENTS: &[&str] = &[
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
    ];
    if kind.starts_with("response.") {
        format!(
            "an event of a streamed OpenAI response (\"type\": \"{kind}\"): a transcript \
             step is a whole item (log the response's output items, e.g. the Agents SDK's \
             to_input_list(), or the response object)"
        )
    } else if ANTHROPIC_EVENTS.contains(&kind) {
        format!(
            "an event of a streamed Anthropic message (\"type\": \"{kind}\"): a transcript \
             step is a whole message (log the message the events add up to, e.g. the \
             stream's get_final_message())"
        )
    } else {
        format!("an item of unknown type \"{kind}\" (expected one of {KNOWN})")
    }
}

/// A response object: its `output` items are one model turn, with its `usage`. Its
/// other fields (`id`, `model`, `instructions`, `tools`, ...) describe the call.
#[derive(Deserialize)]
pub(super) struct Response<'a> {
    #[serde(borrow)]
    output: Vec<&'a RawValue>,
    #[serde(default)]
    usage: Option<ProviderUsage>,
}

/// The model turn of a response.
pub(super) fn read_response<'a>(
    response: Response<'a>,
    within: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let start = out.len();
    each::<Item<'a>>(
        response.output,
        |mut item, text, out| {
            read_into(&mut item, &mut cx.responses, out).map_err(|m| Failure::message(text, m))
        },
        out,
    )?;
    if out.len() > start {
        return Err(Failure::message(
            within,
            "a response's output holds input items",
        ));
    }
    // An empty output is a turn that produced nothing.
    let mut turn = cx
        .responses
        .open
        .take()
        .unwrap_or_else(|| Message::no_response(Role::Llm));
    turn.usage = response.usage.map(ProviderUsage::into_usage);
    out.push(turn);
    Ok(())
}

/// A request: `instructions` (the system prompt) and `input` (a string, or items).
/// Its other fields (`model`, `tools`, ...) are its settings.
#[derive(Deserialize)]
pub(super) struct Request<'a> {
    /// A string, or a list of items: read once it is known which.
    #[serde(borrow)]
    input: &'a RawValue,
    #[serde(default, borrow)]
    instructions: Option<Str<'a>>,
}

/// The messages of a request.
pub(super) fn read_request<'a>(
    request: Request<'a>,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    if let Some(instructions) = request.instructions {
        out.push(Message::new(Role::System, instructions.into_cow()));
    }
    let input = request.input.get();
    if input.starts_with('"') {
        let text = parse::<Str<'a>>(input)?;
        out.push(Message::new(Role::User, text.into_cow()));
    } else {
        each::<Item<'a>>(
            parse::<Vec<&'a RawValue>>(input)?,
            |mut item, text, out| {
                read_into(&mut item, &mut cx.responses, out).map_err(|m| Failure::message(text, m))
            },
            out,
        )?;
    }
    cx.responses.close(out);
    Ok(())
}
