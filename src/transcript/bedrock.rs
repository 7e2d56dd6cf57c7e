//! Amazon Bedrock's Converse API messages, which Strands Agents keeps as its
//! conversation (`agent.messages`).
//!
//! A message is `{"role": "user" | "assistant", "content": [blocks]}`, each block an
//! object of one key naming its kind: `{"text": ...}`, `{"toolUse": {"toolUseId",
//! "name", "input"}}`, `{"toolResult": {"toolUseId", "status", "content": [...]}}`,
//! `{"reasoningContent": ...}`, media. Strands adds the call's `metadata` (its
//! `usage`) to the model's messages. A request (`{"messages", "system"}`) and a
//! response (`{"output": {"message"}, "stopReason", "usage"}`) hold the same
//! messages.
//!
//! The model's message is one message: its texts joined by newlines (its reasoning is
//! not its text), its tool uses. A user's message is its text, and a message for each
//! tool result in it, in their order.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use super::parts::join;
use super::record::{Failure, Out, each};
use super::wire::{RawArguments, Str, failed, tool_call};
use crate::{Message as Step, Role, ToolCall};

/// A Converse message. Strands' `tracking_id` and the call's `metrics` are not read.
#[derive(Deserialize)]
pub(super) struct Message<'a> {
    #[serde(borrow)]
    role: Str<'a>,
    #[serde(borrow)]
    content: Vec<Block<'a>>,
    /// Strands' record of the call that wrote the message (the model's).
    #[serde(default)]
    metadata: Option<Metadata>,
}

#[derive(Deserialize)]
struct Metadata {
    #[serde(default)]
    usage: Option<Usage>,
}

/// A call's token usage. Cache reads and writes count as input: Bedrock reports them
/// apart from `inputTokens`. `totalTokens` is their sum with the output's.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Usage {
    #[serde(default)]
    pub(super) input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) output_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_write_input_tokens: Option<u64>,
}

impl Usage {
    fn into_usage(self) -> crate::Usage {
        let input = [
            self.input_tokens,
            self.cache_read_input_tokens,
            self.cache_write_input_tokens,
        ];
        crate::Usage {
            input_tokens: input.into_iter().flatten().fold(0, u64::saturating_add),
            output_tokens: self.output_tokens.unwrap_or(0),
        }
    }
}

/// A content block: one key, its kind. The keys of every kind are fields, so that a
/// block of two kinds is found out (serde's derive of an enum would take the first)
/// and an unknown key is an error that lists the known ones.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Block<'a> {
    #[serde(default, borrow)]
    text: Option<Str<'a>>,
    #[serde(default, borrow)]
    tool_use: Option<ToolUse<'a>>,
    #[serde(default, borrow)]
    tool_result: Option<ToolResult<'a>>,
    /// Text with its sources: the text is the model's.
    #[serde(default, borrow)]
    citations_content: Option<Citations<'a>>,
    /// Content a guardrail assesses: its text is the message's.
    #[serde(default, borrow)]
    guard_content: Option<Guarded<'a>>,
    /// The model's reasoning: not its answer.
    #[serde(default)]
    reasoning_content: Option<IgnoredAny>,
    #[serde(default)]
    image: Option<IgnoredAny>,
    #[serde(default)]
    document: Option<IgnoredAny>,
    #[serde(default)]
    video: Option<IgnoredAny>,
    #[serde(default)]
    audio: Option<IgnoredAny>,
    #[serde(default)]
    search_result: Option<IgnoredAny>,
    /// A marker for the prompt cache.
    #[serde(default)]
    cache_point: Option<IgnoredAny>,
}

impl<'a> Block<'a> {
    /// The block's kind, or what is wrong with it: none, or more than one.
    fn kind(self) -> Result<Kind<'a>, String> {
        // The first kind found, and the names of the first two (for the error).
        let (mut kind, mut names, mut count) = (None, [""; 2], 0);
        let mut found = |name: &'static str, k: Option<Kind<'a>>| {
            if let Some(k) = k {
                if count < 2 {
                    names[count] = name;
                }
                count += 1;
                kind.get_or_insert(k);
            }
        };
        found("text", self.text.map(Kind::Text));
        found("toolUse", self.tool_use.map(Kind::ToolUse));
        found("toolResult", self.tool_result.map(Kind::ToolResult));
        found(
            "citationsContent",
            self.citations_content.map(Kind::Citations),
        );
        found("guardContent", self.guard_content.map(Kind::Guarded));
        let silent = [
            ("reasoningContent", self.reasoning_content),
            ("image", self.image),
            ("document", self.document),
            ("video", self.video),
            ("audio", self.audio),
            ("searchResult", self.search_result),
            ("cachePoint", self.cache_point),
        ];
        for (name, value) in silent {
            found(name, value.map(|_| Kind::Silent));
        }
        match (kind, count) {
            (Some(kind), 1) => Ok(kind),
            (None, _) => Err(format!(
                "holds none of the block kinds ({})",
                KINDS.join(", ")
            )),
            (Some(_), _) => Err(format!(
                "holds {} and {} (a block holds one kind)",
                names[0], names[1]
            )),
        }
    }
}

/// The block kinds: the keys of [`Block`], in its order (for the error on a block of
/// none, and what `auto` knows a Converse block by).
pub(super) const KINDS: &[&str] = &[
    "text",
    "toolUse",
    "toolResult",
    "citationsContent",
    "guardContent",
    "reasoningContent",
    "image",
    "document",
    "video",
    "audio",
    "searchResult",
    "cachePoint",
];

/// What a block holds.
enum Kind<'a> {
    Text(Str<'a>),
    ToolUse(ToolUse<'a>),
    ToolResult(ToolResult<'a>),
    Citations(Citations<'a>),
    Guarded(Guarded<'a>),
    /// Media, reasoning, a cache point: nothing doneseq reads.
    Silent,
}

/// The model's request to run a tool. Its `type` (a server tool's) and
/// `reasoningSignature` are not read. Filled by serde, or by the fast path's scanner
/// (in a default one).
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolUse<'a> {
    #[serde(default, borrow)]
    pub(super) tool_use_id: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(super) name: Option<Str<'a>>,
    #[serde(default)]
    pub(super) input: Option<RawArguments<'a>>,
}

/// A tool's result: its content blocks, and whether it failed.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolResult<'a> {
    #[serde(default, borrow)]
    tool_use_id: Option<Str<'a>>,
    #[serde(default, borrow)]
    status: Option<Str<'a>>,
    #[serde(default, borrow)]
    content: Option<Vec<ResultBlock<'a>>>,
}

/// A block of a tool's result: text, JSON (its text is the JSON's), or media.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ResultBlock<'a> {
    #[serde(default, borrow)]
    text: Option<Str<'a>>,
    #[serde(default, borrow)]
    json: Option<&'a RawValue>,
    /// Media: known (an unknown key is an error), not read.
    #[serde(default)]
    image: Option<IgnoredAny>,
    #[serde(default)]
    document: Option<IgnoredAny>,
    #[serde(default)]
    video: Option<IgnoredAny>,
    #[serde(default)]
    search_result: Option<IgnoredAny>,
}

impl ResultBlock<'_> {
    /// Whether the block holds nothing (no key, or only `null`s).
    fn is_empty(&self) -> bool {
        self.text.is_none()
            && self.json.is_none()
            && self.image.is_none()
            && self.document.is_none()
            && self.video.is_none()
            && self.search_result.is_none()
    }
}

/// Cited text: `content`'s texts (the citations themselves are not read).
#[derive(Deserialize)]
struct Citations<'a> {
    #[serde(default, borrow)]
    content: Vec<CitedText<'a>>,
}

#[derive(Deserialize)]
struct CitedText<'a> {
    #[serde(default, borrow)]
    text: Option<Str<'a>>,
}

/// Guarded content: its `text.text` (an image guarded has none).
#[derive(Deserialize)]
struct Guarded<'a> {
    #[serde(default, borrow)]
    text: Option<CitedText<'a>>,
}

/// Whose a message is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Model,
    User,
}

/// A message's blocks folded into its messages as they are read (by serde, or by the
/// fast path's scanner, which builds no list of blocks): the model's text and calls,
/// a user's text, each tool result a message in its place.
pub(super) struct Turn<'a> {
    side: Side,
    text: Option<Cow<'a, str>>,
    calls: Vec<ToolCall<'a>>,
    /// Where the message's messages begin in the caller's list.
    start: usize,
}

impl<'a> Turn<'a> {
    /// A message of `role` whose messages are added to `out`.
    pub(super) fn new(role: &str, out: &Out<'a>) -> Result<Turn<'a>, String> {
        let side = match role {
            "assistant" => Side::Model,
            "user" => Side::User,
            other => {
                return Err(format!(
                    "a message of role \"{other}\" (expected \"user\" or \"assistant\")"
                ));
            }
        };
        Ok(Turn {
            side,
            text: None,
            calls: Vec::new(),
            start: out.len(),
        })
    }

    /// A text block's text (or cited or guarded text).
    pub(super) fn text(&mut self, piece: Cow<'a, str>) {
        self.text = Some(join(self.text.take(), piece));
    }

    /// A tool use.
    pub(super) fn call(&mut self, call: ToolUse<'a>) -> Result<(), &'static str> {
        if self.side == Side::User {
            return Err("a toolUse in the user's message");
        }
        let name = (call.name)
            .filter(|n| !n.is_empty())
            .ok_or("a toolUse with no \"name\"")?;
        self.calls
            .push(tool_call(name.into_cow(), call.input, call.tool_use_id));
        Ok(())
    }

    /// A tool result: its text (its blocks' joined), failed where its status is
    /// `error`. The user's text before it is a turn before it.
    pub(super) fn result(
        &mut self,
        id: Option<Str<'a>>,
        status: Option<Str<'a>>,
        text: Option<Cow<'a, str>>,
        out: &mut Out<'a>,
    ) -> Result<(), String> {
        if self.side == Side::Model {
            return Err("a toolResult in the model's message".into());
        }
        let mut step = Step::new(Role::Agent, text.unwrap_or_default());
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            step = step.with_tool_call_id(id.into_cow());
        }
        let step = match status.as_ref().map(|s| &*s.0) {
            None | Some("success") => step,
            Some("error") => failed(step, "the tool failed"),
            Some(other) => {
                return Err(format!(
                    "a toolResult of status \"{other}\" (expected \"success\" or \"error\")"
                ));
            }
        };
        if let Some(said) = self.text.take() {
            out.push(Step::new(Role::User, said));
        }
        out.push(step);
        Ok(())
    }

    /// The message's own message, once its blocks are read: the model's (with its
    /// call's `usage`; failed, where the call's stop reason says it failed), or the
    /// user's (even with no text, an image alone; not when it held only results).
    pub(super) fn finish(
        self,
        usage: Option<Usage>,
        failure: Option<&'static str>,
        out: &mut Out<'a>,
    ) {
        match self.side {
            Side::Model => {
                let mut reply = Step::new(Role::Llm, self.text.unwrap_or_default());
                reply.tool_calls = self.calls;
                reply.usage = usage.map(Usage::into_usage);
                if let Some(reason) = failure {
                    reply = failed(reply, format!("the model stopped: {reason}"));
                }
                out.push(reply);
            }
            Side::User if self.text.is_some() || out.len() == self.start => {
                out.push(Step::new(Role::User, self.text.unwrap_or_default()));
            }
            Side::User => {}
        }
    }
}

/// The messages of `message`, the model's carrying `usage` (a response's, where the
/// message has none of its own). On an error, what was added is dropped by the reader
/// with the record.
fn read_message<'a>(
    message: Message<'a>,
    usage: Option<Usage>,
    failure: Option<&'static str>,
    out: &mut Out<'a>,
) -> Result<(), String> {
    let mut turn = Turn::new(&message.role.0, out)?;
    let count = message.content.len();
    for (i, block) in message.content.into_iter().enumerate() {
        let at = || format!("content block {} of {count}", i + 1);
        match block.kind().map_err(|m| format!("{} {m}", at()))? {
            Kind::Text(piece) => turn.text(piece.into_cow()),
            Kind::Citations(cited) => {
                for piece in cited.content.into_iter().filter_map(|c| c.text) {
                    turn.text(piece.into_cow());
                }
            }
            Kind::Guarded(guarded) => {
                if let Some(piece) = guarded.text.and_then(|t| t.text) {
                    turn.text(piece.into_cow());
                }
            }
            Kind::ToolUse(call) => turn.call(call).map_err(|m| format!("{}: {m}", at()))?,
            Kind::ToolResult(result) => {
                let mut text = None;
                for block in result.content.unwrap_or_default() {
                    result_block(&mut text, block.text, block.json.map(RawValue::get));
                }
                turn.result(result.tool_use_id, result.status, text, out)
                    .map_err(|m| format!("{}: {m}", at()))?;
            }
            Kind::Silent => {}
        }
    }
    let usage = message.metadata.and_then(|m| m.usage).or(usage);
    turn.finish(usage, failure, out);
    Ok(())
}

/// A tool result's block added to its text: its text, then its JSON's compact text.
pub(super) fn result_block<'a>(
    text: &mut Option<Cow<'a, str>>,
    piece: Option<Str<'a>>,
    json: Option<&'a str>,
) {
    if let Some(piece) = piece {
        *text = Some(join(text.take(), piece.into_cow()));
    }
    if let Some(json) = json {
        *text = Some(join(text.take(), super::compact(json)));
    }
}

/// The messages of Converse content blocks written as JSON text (`text`, a list), as
/// a message of `role` holds them: Strands Agents records a message's content so in
/// its OpenTelemetry events. The model's blocks are its message; any other role's are
/// a user's message's (each tool result a message), those that are not results of
/// that role (a system prompt's text a system message).
pub(super) fn blocks_messages(role: Role, text: &str) -> Result<Vec<Step<'static>>, String> {
    let content: Vec<Block<'_>> = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let side = if role == Role::Llm {
        "assistant"
    } else {
        "user"
    };
    let message = Message {
        role: Str(Cow::Borrowed(side)),
        content,
        metadata: None,
    };
    let mut out = Out::new();
    read_message(message, None, None, &mut out)?;
    Ok(out
        .into_iter()
        .map(|mut step| {
            if step.role == Role::User {
                step.role = role;
            }
            step.into_owned()
        })
        .collect())
}

/// The text of a tool's result given as Converse result blocks (JSON text of a list
/// of blocks keyed by `text`, `json` or media, at least one holding something, as
/// Strands Agents records a tool's response in its OpenTelemetry events): the blocks'
/// texts and JSON joined, as a `toolResult`'s. `None` for any other JSON.
pub(super) fn result_blocks_text(json: &str) -> Option<String> {
    let blocks: Vec<ResultBlock<'_>> = serde_json::from_str(json).ok()?;
    if blocks.iter().all(ResultBlock::is_empty) {
        return None;
    }
    let mut text = None;
    for block in blocks {
        result_block(&mut text, block.text, block.json.map(RawValue::get));
    }
    Some(text.unwrap_or_default().into_owned())
}

/// A message as a record of its own (a line, or an element of a conversation).
pub(super) fn read<'a>(
    message: Message<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    read_message(message, None, None, out).map_err(|m| Failure::message(within, m))
}

/// A message as Strands Agents' session managers save it (`FileSessionManager`
/// writes each to a file of its own, `message_<id>.json`): the message, and what
/// replaced it where it was redacted (a guardrail's verdict), which is what Strands
/// restores. Its id and times are not read.
#[derive(Deserialize)]
pub(super) struct SessionMessage<'a> {
    #[serde(borrow)]
    message: Message<'a>,
    #[serde(default, borrow)]
    redact_message: Option<Message<'a>>,
}

/// A saved message: the message Strands restores.
pub(super) fn read_saved<'a>(
    saved: SessionMessage<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    read(saved.redact_message.unwrap_or(saved.message), within, out)
}

/// A Converse request: its `messages`, its `system` prompt before them (its text and
/// guarded text blocks; a cache point is not text). Its model, tools and settings are
/// not messages.
#[derive(Deserialize)]
pub(super) struct Request<'a> {
    #[serde(borrow)]
    messages: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    system: Option<Vec<SystemBlock<'a>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SystemBlock<'a> {
    #[serde(default, borrow)]
    text: Option<Str<'a>>,
    #[serde(default, borrow)]
    guard_content: Option<Guarded<'a>>,
    /// Known (an unknown key is an error), not text.
    #[allow(dead_code)]
    #[serde(default)]
    cache_point: Option<IgnoredAny>,
}

/// The messages of a request: its system prompt, then each message.
pub(super) fn read_request<'a>(request: Request<'a>, out: &mut Out<'a>) -> Result<(), Failure<'a>> {
    system_prompt(request.system.unwrap_or_default(), out);
    each(request.messages, read, out)
}

/// A system prompt's text and guarded text joined, as a system message (none where
/// it holds no text).
fn system_prompt<'a>(blocks: Vec<SystemBlock<'a>>, out: &mut Out<'a>) {
    let mut system: Option<Cow<'a, str>> = None;
    for block in blocks {
        let guarded = block
            .guard_content
            .and_then(|g| g.text)
            .and_then(|t| t.text);
        for piece in block.text.into_iter().chain(guarded) {
            system = Some(join(system, piece.into_cow()));
        }
    }
    if let Some(system) = system {
        out.push(Step::new(Role::System, system));
    }
}

/// A Strands Agents snapshot of an agent (`agent.take_snapshot()`, and what its
/// `SnapshotSessionManager` saves, `snapshot_latest.json`): `data`'s `system_prompt`
/// (where it was taken) and `messages`. The agent's state, its conversation
/// manager's, its model's and the application's data are not messages.
#[derive(Deserialize)]
pub(super) struct Snapshot<'a> {
    #[serde(borrow)]
    scope: Str<'a>,
    #[serde(borrow)]
    schema_version: Str<'a>,
    #[serde(borrow)]
    data: SnapshotData<'a>,
}

#[derive(Deserialize)]
struct SnapshotData<'a> {
    #[serde(default, borrow)]
    messages: Option<Vec<&'a RawValue>>,
    #[serde(default, borrow)]
    system_prompt: Option<Vec<SystemBlock<'a>>>,
}

/// The schema of Strands' snapshots read (Strands refuses any other too).
const SNAPSHOT_SCHEMA: &str = "1.0";

/// A snapshot's system prompt, then its messages; an error for a snapshot of a
/// multi-agent orchestrator (its nodes' states, not a conversation), of another
/// schema, or taken without its messages.
pub(super) fn read_snapshot<'a>(
    snapshot: Snapshot<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    if snapshot.scope.0 != "agent" {
        return Err(Failure::message(
            within,
            format!(
                "a snapshot of scope \"{}\" holds no agent's conversation (an agent's \
                 snapshot, of scope \"agent\", does)",
                snapshot.scope.0
            ),
        ));
    }
    if snapshot.schema_version.0 != SNAPSHOT_SCHEMA {
        return Err(Failure::message(
            within,
            format!(
                "a snapshot of schema version \"{}\" (version \"{SNAPSHOT_SCHEMA}\" is read)",
                snapshot.schema_version.0
            ),
        ));
    }
    let Some(messages) = snapshot.data.messages else {
        return Err(Failure::message(
            within,
            "a snapshot taken without its messages (its `data` has no \"messages\")",
        ));
    };
    system_prompt(snapshot.data.system_prompt.unwrap_or_default(), out);
    each(messages, read, out)
}

/// A Converse response: the model's message, the call's usage, and why it stopped.
/// Its `metrics`, `trace` and boto3's `ResponseMetadata` are not read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Response<'a> {
    #[serde(borrow)]
    output: Output<'a>,
    #[serde(default, borrow)]
    stop_reason: Option<Str<'a>>,
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Output<'a> {
    #[serde(borrow)]
    message: Message<'a>,
}

/// The stop reasons of a model turn that failed: a guardrail or the content filter
/// stopped it, or its output (or tool use) could not be read.
const FAILED: &[&str] = &[
    "guardrail_intervened",
    "content_filtered",
    "malformed_model_output",
    "malformed_tool_use",
];

/// The model's message of a response, failed where its stop reason says it failed.
pub(super) fn read_response<'a>(
    response: Response<'a>,
    within: &'a str,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let message = response.output.message;
    if message.role.0 != "assistant" {
        return Err(Failure::message(
            within,
            format!(
                "a response's message has role \"{}\" (expected \"assistant\")",
                message.role.0
            ),
        ));
    }
    let failure = (response.stop_reason.as_ref())
        .and_then(|reason| FAILED.iter().copied().find(|f| *f == reason.0));
    read_message(message, response.usage, failure, out).map_err(|m| Failure::message(within, m))
}

#[cfg(test)]
mod tests {
    use super::{Block, KINDS, result_blocks_text};

    /// A tool's response written as Converse result blocks is their text; any other
    /// list is not taken for them.
    #[test]
    fn result_blocks_are_their_text() {
        let text = result_blocks_text;
        let blocks = r#"[{"text": "a"}, {"json": {"b": [1, 2]}}, {"image": {}}, {"text": null}]"#;
        assert_eq!(text(blocks).as_deref(), Some("a\n{\"b\":[1,2]}"));
        assert_eq!(text(r#"[{"text": "5"}]"#).as_deref(), Some("5"));
        for other in [
            "[]",
            "[1]",
            "[{}]",
            r#"[{"text": "a", "type": "text"}]"#,
            r#"[{"text": 5}]"#,
            r#"{"text": "a"}"#,
        ] {
            assert_eq!(text(other), None, "{other}");
        }
    }

    /// `KINDS` lists `Block`'s keys, in its order, and nothing else: each is read as
    /// the one kind of a block, and the error for an unknown key lists them.
    #[test]
    fn kinds_are_the_blocks_keys() {
        for kind in KINDS {
            let value = if *kind == "text" { "\"t\"" } else { "{}" };
            let text = format!("{{\"{kind}\": {value}}}");
            let block: Block = serde_json::from_str(&text).unwrap();
            assert!(block.kind().is_ok(), "{kind}");
        }
        let error = serde_json::from_str::<Block>(r#"{"txet": 1}"#)
            .err()
            .unwrap()
            .to_string();
        let expected: Vec<String> = KINDS.iter().map(|k| format!("`{k}`")).collect();
        assert!(error.contains(&expected.join(", ")), "{error}");
    }
}
