//! The wire form of one transcript message: the union of doneseq's JSONL schema and
//! OpenAI's chat message, so one parser reads both.
//!
//! Borrowed: a text without escapes is a slice of the line, and a tool call's
//! arguments are their JSON text, so a line becomes a [`Message`] without copying its
//! texts or building a JSON value.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use super::parts::{self, Content, Found};
use super::record::Out;

use crate::message::CallArguments;
use crate::{Message, Role, ToolCall, Usage};

/// A message read by serde_json from a line or a JSON document.
pub(super) type JsonLine<'a> = Line<'a, RawArguments<'a>>;

/// One message as it appears in a log line or array element, its tool arguments read
/// as `A`. Every field is optional but `role`; an unknown one is an error.
///
/// Deserialized by hand ([`visit_line`]), not derived: the record reader converts
/// the line into its message inside the visitor ([`MessageSeed`]), so that this
/// struct (about 400 bytes) is never moved out of serde's frames, which was a tenth
/// of a replay's time.
pub(super) struct Line<'a, A = Arguments<'a>> {
    role: Str<'a>,
    content: Option<Content<'a, A>>,
    responder: Option<Str<'a>>,
    /// OpenAI's participant name; the responder when `responder` is absent.
    name: Option<Str<'a>>,
    tool_calls: Option<Calls<'a, A>>,
    /// OpenAI's legacy single call.
    function_call: Option<Function<'a, A>>,
    /// OpenAI: which call a `tool` message answers (read by `tool(x, executed)`).
    tool_call_id: Option<Str<'a>>,
    /// Named numbers (scores, probabilities) for stop conditions to read.
    metrics: Option<std::collections::BTreeMap<String, f64>>,
    /// Milliseconds since the run started when the message was recorded.
    elapsed_ms: Option<u64>,
    usage: Option<UsageWire>,
    error: Option<Str<'a>>,
    confidence: Option<f64>,
    reward: Option<f64>,
    no_response: bool,
    /// A stop message (AutoGen's `StopMessage`): its speaker ends the conversation.
    stop: bool,
    /// A handoff to this agent (AutoGen's `HandoffMessage`'s `target`).
    handoff: Option<Str<'a>>,
    /// On a tool's result: the tool's name (read by `tool(x, executed)` when the
    /// request is not in view).
    tool_name: Option<Str<'a>>,
    /// Part of the task's input (`true`) or a step (`false`), whatever the task's
    /// `input` mode would decide.
    input: Option<bool>,
    /// OpenAI: what the model said instead of an answer, read as text.
    refusal: Option<Str<'a>>,
}

/// The keys of a [`Line`], in its fields' order (which error messages list).
/// `metadata` (free-form data for the log's own use), `annotations` and `audio`
/// (OpenAI's, carrying nothing doneseq classifies), `raw_tool_call_parts` (CrewAI's
/// copy of the calls in `tool_calls`, as Gemini's SDK gave them) and `files` (the
/// files CrewAI attaches to a task's message: media, not text) are read and ignored;
/// so are the keys OpenAI-compatible providers and clients add to the assistant's
/// message: its reasoning (`reasoning_content`: DeepSeek, vLLM, xAI, LiteLLM;
/// `reasoning` and `reasoning_details`: OpenRouter, Groq, vLLM; `thinking`: Ollama;
/// `thinking_blocks`: LiteLLM), which is not its answer, as no format's reasoning
/// is; LiteLLM's `provider_specific_fields`; Ollama's `images` (media); Mistral's
/// `prefix` (a flag on a message that the next one continues).
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Key {
    Role,
    Content,
    Responder,
    Name,
    ToolCalls,
    FunctionCall,
    ToolCallId,
    Metrics,
    ElapsedMs,
    Usage,
    Error,
    Confidence,
    Reward,
    NoResponse,
    Stop,
    Handoff,
    ToolName,
    Input,
    Refusal,
    // The keys read and ignored, from here to the end (`IGNORED_KEYS`).
    Metadata,
    Annotations,
    Audio,
    RawToolCallParts,
    Files,
    ReasoningContent,
    Reasoning,
    ReasoningDetails,
    Thinking,
    ThinkingBlocks,
    ProviderSpecificFields,
    Images,
    Prefix,
}

/// Reads a [`Line`] from a map: serde's derived visitor, written out (the same
/// errors: an unknown, duplicate or missing field), so that the record reader can
/// convert the line where it is built.
#[inline(always)]
fn visit_line<'de: 'a, 'a, A, M>(mut map: M) -> Result<Line<'a, A>, M::Error>
where
    A: Deserialize<'de> + ArgumentsText<'a>,
    M: serde::de::MapAccess<'de>,
{
    use serde::de::Error;
    /// Sets a field once: a second value is serde's "duplicate field".
    fn once<'de, T: Deserialize<'de>, M: serde::de::MapAccess<'de>>(
        map: &mut M,
        slot: &mut Option<T>,
        name: &'static str,
    ) -> Result<(), M::Error> {
        if slot.is_some() {
            return Err(M::Error::duplicate_field(name));
        }
        *slot = Some(map.next_value()?);
        Ok(())
    }
    // A field that is `null` is absent (`Option`'s reading), but still set once.
    let mut role: Option<Str<'a>> = None;
    let mut content: Option<Option<Content<'a, A>>> = None;
    let mut responder: Option<Option<Str<'a>>> = None;
    let mut name: Option<Option<Str<'a>>> = None;
    let mut tool_calls: Option<Option<Calls<'a, A>>> = None;
    let mut function_call: Option<Option<Function<'a, A>>> = None;
    let mut tool_call_id: Option<Option<Str<'a>>> = None;
    let mut metrics: Option<Option<std::collections::BTreeMap<String, f64>>> = None;
    let mut elapsed_ms: Option<Option<u64>> = None;
    let mut usage: Option<Option<UsageWire>> = None;
    let mut error: Option<Option<Str<'a>>> = None;
    let mut confidence: Option<Option<f64>> = None;
    let mut reward: Option<Option<f64>> = None;
    let mut no_response: Option<bool> = None;
    let mut stop: Option<bool> = None;
    let mut handoff: Option<Option<Str<'a>>> = None;
    let mut tool_name: Option<Option<Str<'a>>> = None;
    let mut input: Option<Option<bool>> = None;
    // The keys read and ignored that were seen, a bit each (`Key`'s number).
    let mut ignored = 0u64;
    let mut refusal: Option<Option<Str<'a>>> = None;
    while let Some(key) = map.next_key::<Key>()? {
        match key {
            Key::Role => once(&mut map, &mut role, "role")?,
            Key::Content => once(&mut map, &mut content, "content")?,
            Key::Responder => once(&mut map, &mut responder, "responder")?,
            Key::Name => once(&mut map, &mut name, "name")?,
            Key::ToolCalls => once(&mut map, &mut tool_calls, "tool_calls")?,
            Key::FunctionCall => once(&mut map, &mut function_call, "function_call")?,
            Key::ToolCallId => once(&mut map, &mut tool_call_id, "tool_call_id")?,
            Key::Metrics => once(&mut map, &mut metrics, "metrics")?,
            Key::ElapsedMs => once(&mut map, &mut elapsed_ms, "elapsed_ms")?,
            Key::Usage => once(&mut map, &mut usage, "usage")?,
            Key::Error => once(&mut map, &mut error, "error")?,
            Key::Confidence => once(&mut map, &mut confidence, "confidence")?,
            Key::Reward => once(&mut map, &mut reward, "reward")?,
            Key::NoResponse => once(&mut map, &mut no_response, "no_response")?,
            Key::Stop => once(&mut map, &mut stop, "stop")?,
            Key::Handoff => once(&mut map, &mut handoff, "handoff")?,
            Key::ToolName => once(&mut map, &mut tool_name, "tool_name")?,
            Key::Input => once(&mut map, &mut input, "input")?,
            Key::Refusal => once(&mut map, &mut refusal, "refusal")?,
            Key::Metadata
            | Key::Annotations
            | Key::Audio
            | Key::RawToolCallParts
            | Key::Files
            | Key::ReasoningContent
            | Key::Reasoning
            | Key::ReasoningDetails
            | Key::Thinking
            | Key::ThinkingBlocks
            | Key::ProviderSpecificFields
            | Key::Images
            | Key::Prefix => {
                // Read (as JSON) and ignored, but once, as a field is.
                let bit = 1u64 << key as u32;
                if ignored & bit != 0 {
                    return Err(M::Error::duplicate_field(LINE_FIELDS[key as usize]));
                }
                ignored |= bit;
                map.next_value::<IgnoredAny>()?;
            }
        }
    }
    Ok(Line {
        role: role.ok_or_else(|| M::Error::missing_field("role"))?,
        content: content.flatten(),
        responder: responder.flatten(),
        name: name.flatten(),
        tool_calls: tool_calls.flatten(),
        function_call: function_call.flatten(),
        tool_call_id: tool_call_id.flatten(),
        metrics: metrics.flatten(),
        elapsed_ms: elapsed_ms.flatten(),
        usage: usage.flatten(),
        error: error.flatten(),
        confidence: confidence.flatten(),
        reward: reward.flatten(),
        no_response: no_response.unwrap_or(false),
        stop: stop.unwrap_or(false),
        handoff: handoff.flatten(),
        tool_name: tool_name.flatten(),
        input: input.flatten(),
        refusal: refusal.flatten(),
    })
}

/// The keys of a [`Line`] that are read (as JSON) and ignored, each once: the last of
/// [`LINE_FIELDS`], from `metadata` on. (The fast path skips them by this list.)
pub(super) const IGNORED_KEYS: &[&str] = LINE_FIELDS.split_at(Key::Metadata as usize).1;

// A key's bit in [`visit_line`]'s set of the ignored keys seen is its number.
const _: () = assert!(LINE_FIELDS.len() <= 64);

/// The keys of a [`Line`], as [`Key`] names them (a test keeps the two in step), for
/// deserializers that recognise a struct's keys by its field names (the Python
/// package's).
const LINE_FIELDS: &[&str] = &[
    "role",
    "content",
    "responder",
    "name",
    "tool_calls",
    "function_call",
    "tool_call_id",
    "metrics",
    "elapsed_ms",
    "usage",
    "error",
    "confidence",
    "reward",
    "no_response",
    "stop",
    "handoff",
    "tool_name",
    "input",
    "refusal",
    "metadata",
    "annotations",
    "audio",
    "raw_tool_call_parts",
    "files",
    "reasoning_content",
    "reasoning",
    "reasoning_details",
    "thinking",
    "thinking_blocks",
    "provider_specific_fields",
    "images",
    "prefix",
];

impl<'de: 'a, 'a, A: Deserialize<'de> + ArgumentsText<'a>> Deserialize<'de> for Line<'a, A> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct LineVisitor<'a, A>(std::marker::PhantomData<(&'a (), A)>);
        impl<'de: 'a, 'a, A: Deserialize<'de> + ArgumentsText<'a>> serde::de::Visitor<'de>
            for LineVisitor<'a, A>
        {
            type Value = Line<'a, A>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("struct Line")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                map: M,
            ) -> Result<Self::Value, M::Error> {
                visit_line::<'de, 'a, A, M>(map)
            }
        }
        deserializer.deserialize_struct("Line", LINE_FIELDS, LineVisitor(std::marker::PhantomData))
    }
}

/// What the record reader takes from a chat message: whether its role is spelled as
/// Langroid spells its entities, and its message (or what is wrong with it); the
/// tool results it carries go to [`MessageSeed`]'s `results`.
pub(super) struct Converted<'de> {
    pub(super) langroid_role: bool,
    pub(super) message: Result<Option<Message<'de>>, String>,
}

/// Reads a chat message and converts it where it is read ([`Line::into_message`]):
/// the line is never moved.
pub(super) struct MessageSeed<'o, 'de, A> {
    pub(super) results: &'o mut Out<'de>,
    pub(super) arguments: std::marker::PhantomData<A>,
}

impl<'de, A: Deserialize<'de> + ArgumentsText<'de>> serde::de::DeserializeSeed<'de>
    for MessageSeed<'_, 'de, A>
{
    type Value = Converted<'de>;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Converted<'de>, D::Error> {
        struct SeedVisitor<'o, 'de, A>(&'o mut Out<'de>, std::marker::PhantomData<A>);
        impl<'de, A: Deserialize<'de> + ArgumentsText<'de>> serde::de::Visitor<'de>
            for SeedVisitor<'_, 'de, A>
        {
            type Value = Converted<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("struct Line")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                map: M,
            ) -> Result<Converted<'de>, M::Error> {
                let line = visit_line::<'de, 'de, A, M>(map)?;
                Ok(Converted {
                    langroid_role: line.langroid_role(),
                    message: line.into_message(self.0),
                })
            }
        }
        deserializer.deserialize_struct(
            "Line",
            LINE_FIELDS,
            SeedVisitor::<A>(self.results, std::marker::PhantomData),
        )
    }
}

/// A string, borrowed from the input where it has no escapes. (serde's own `Cow<str>`
/// always copies, and `#[serde(borrow)]` borrows only a field that is a `Cow`
/// itself, not one in an `Option`.) The default is empty.
#[derive(Debug, Default)]
pub(super) struct Str<'de>(pub(super) Cow<'de, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Str<'a>, D::Error> {
        struct StrVisitor;
        impl<'de> serde::de::Visitor<'de> for StrVisitor {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                text: &'de str,
            ) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Borrowed(text)))
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Str<'de>, E> {
                Ok(Str(Cow::Owned(text)))
            }
        }
        deserializer.deserialize_str(StrVisitor)
    }
}

impl<'de> Str<'de> {
    pub(super) fn into_cow(self) -> Cow<'de, str> {
        self.0
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A value given as a string or as a list of `T`s: a chat message's `content` (a
/// string or content parts), Anthropic's `system` (a string or text blocks),
/// LangChain's `content` (a string or blocks).
pub(super) enum StringOrList<'a, T> {
    Text(Cow<'a, str>),
    List(Vec<T>),
}

impl<T> Default for StringOrList<'_, T> {
    /// No text.
    fn default() -> Self {
        StringOrList::Text(Cow::Borrowed(""))
    }
}

/// What a [`StringOrList`] of these is, for serde's error: "expected {EXPECTING}".
pub(super) trait Listed {
    const EXPECTING: &'static str;
}

impl Listed for &serde_json::value::RawValue {
    const EXPECTING: &'static str = "a string or a list of content blocks";
}

// By hand, not `untagged`: an untagged enum buffers the value and, on a mismatch,
// says only "did not match any variant".
impl<'de: 'a, 'a, T: Deserialize<'de> + Listed> Deserialize<'de> for StringOrList<'a, T> {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<StringOrList<'a, T>, D::Error> {
        struct Visitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Listed> serde::de::Visitor<'de> for Visitor<T> {
            type Value = StringOrList<'de, T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(T::EXPECTING)
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                text: &'de str,
            ) -> Result<StringOrList<'de, T>, E> {
                Ok(StringOrList::Text(Cow::Borrowed(text)))
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<StringOrList<'de, T>, E> {
                Ok(StringOrList::Text(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(
                self,
                text: String,
            ) -> Result<StringOrList<'de, T>, E> {
                Ok(StringOrList::Text(Cow::Owned(text)))
            }
            fn visit_seq<S: serde::de::SeqAccess<'de>>(
                self,
                mut seq: S,
            ) -> Result<StringOrList<'de, T>, S::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(1).min(64));
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(StringOrList::List(items))
            }
        }
        deserializer.deserialize_any(Visitor(std::marker::PhantomData))
    }
}

/// A value's JSON text as written, borrowed from the line: read by serde_json as a
/// raw value, or by the fast path's scanner, which cannot make one (only serde_json
/// makes a borrowed `RawValue`).
#[derive(Clone, Copy)]
pub(super) struct RawJson<'a>(pub(super) &'a str);

impl<'de: 'a, 'a> Deserialize<'de> for RawJson<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<RawJson<'a>, D::Error> {
        Ok(RawJson(
            <&'de serde_json::value::RawValue>::deserialize(deserializer)?.get(),
        ))
    }
}

/// A tool call's arguments as JSON text (empty when there are none).
pub(super) trait ArgumentsText<'a> {
    /// The arguments, as a call keeps them.
    fn into_arguments(self) -> CallArguments<'a>;
}

/// A tool call's arguments, read from any deserializer (the Python package's dicts):
/// OpenAI sends a string of JSON (kept as it is), doneseq's schema an object (read as a
/// JSON value and written as text). The transcript reader reads [`RawArguments`].
pub(super) struct Arguments<'de>(Cow<'de, str>);

impl<'a> ArgumentsText<'a> for Arguments<'a> {
    fn into_arguments(self) -> CallArguments<'a> {
        CallArguments::text(self.0)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Arguments<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Arguments<'a>, D::Error> {
        Ok(Arguments(
            match Option::<Value>::deserialize(deserializer)? {
                None | Some(Value::Null) => Cow::Borrowed(""),
                Some(Value::String(text)) => Cow::Owned(text),
                Some(other) => Cow::Owned(other.to_string()),
            },
        ))
    }
}

/// A tool call's arguments, read by serde_json: a string of JSON is its text, any
/// other value the JSON text it was written in, borrowed from the line (serde_json's
/// raw values), so an object of arguments is neither parsed into values nor written
/// again. (The fast path's scanner fills it too, with a string's escapes not decoded:
/// [`CallArguments::Escaped`]. serde's string is decoded here, so that one it refuses
/// is the record's error, as it was.)
pub(super) struct RawArguments<'a>(pub(super) CallArguments<'a>);

impl<'a> ArgumentsText<'a> for RawArguments<'a> {
    fn into_arguments(self) -> CallArguments<'a> {
        self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RawArguments<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<RawArguments<'a>, D::Error> {
        let raw = <&'de serde_json::value::RawValue>::deserialize(deserializer)?.get();
        if raw.starts_with('"') {
            let text = serde_json::from_str::<Str<'de>>(raw).map_err(serde::de::Error::custom)?;
            Ok(RawArguments(CallArguments::text(text.0)))
        } else if raw == "null" {
            Ok(RawArguments(CallArguments::default()))
        } else {
            Ok(RawArguments(CallArguments::Borrowed(raw)))
        }
    }
}

/// A value's JSON text as written, borrowed (serde_json's raw value, of which only
/// serde can make one): a field read only where it is needed, which the fast path's
/// scanner fills too.
pub(super) fn json_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'de str, D::Error> {
    Ok(<&'de serde_json::value::RawValue>::deserialize(d)?.get())
}

/// [`json_text`] of an optional value (`None` for `null`).
pub(super) fn optional_json_text<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<&'de str>, D::Error> {
    Ok(Option::<&'de serde_json::value::RawValue>::deserialize(d)?
        .map(serde_json::value::RawValue::get))
}

/// A message's `tool_calls`, read straight into the message's list (one allocation,
/// not a list of wire calls and then the list), or what is wrong with one of them (an
/// error of the message's, not of the JSON's).
pub(super) struct Calls<'a, A> {
    calls: Result<Vec<ToolCall<'a>>, String>,
    arguments: std::marker::PhantomData<A>,
}

impl<'de: 'a, 'a, A: Deserialize<'de> + ArgumentsText<'a>> Deserialize<'de> for Calls<'a, A> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Calls<'a, A>, D::Error> {
        struct CallsVisitor<'a, A>(std::marker::PhantomData<(&'a (), A)>);
        impl<'de: 'a, 'a, A: Deserialize<'de> + ArgumentsText<'a>> serde::de::Visitor<'de>
            for CallsVisitor<'a, A>
        {
            type Value = Calls<'a, A>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of tool calls")
            }
            fn visit_seq<S: serde::de::SeqAccess<'de>>(
                self,
                mut seq: S,
            ) -> Result<Calls<'a, A>, S::Error> {
                // One more than the list's own: a `function_call` may join it.
                let mut calls = Vec::with_capacity(seq.size_hint().unwrap_or(1).min(64) + 1);
                let mut problem = None;
                // Every call is read, even after a bad one: the JSON must be whole.
                while let Some(call) = seq.next_element::<Call<'a, A>>()? {
                    if problem.is_some() {
                        continue;
                    }
                    match call.into_tool_call(calls.len()) {
                        Ok(call) => calls.push(call),
                        Err(e) => problem = Some(e),
                    }
                }
                Ok(Calls {
                    calls: problem.map_or(Ok(calls), Err),
                    arguments: std::marker::PhantomData,
                })
            }
        }
        deserializer.deserialize_seq(CallsVisitor(std::marker::PhantomData))
    }
}

impl<'a, A> Calls<'a, A> {
    /// Calls the fast path's scanner read (it gives up on a call that is wrong).
    pub(super) fn scanned(calls: Vec<ToolCall<'a>>) -> Calls<'a, A> {
        Calls {
            calls: Ok(calls),
            arguments: std::marker::PhantomData,
        }
    }

    /// The calls, or what is wrong with one of them.
    pub(super) fn into_calls(self) -> Result<Vec<ToolCall<'a>>, String> {
        self.calls
    }
}

impl<'a, A: ArgumentsText<'a>> Call<'a, A> {
    /// The `i`th call as the message holds it, or what is wrong with it.
    fn into_tool_call(self, i: usize) -> Result<ToolCall<'a>, String> {
        let (name, arguments) = match (self.name, self.function) {
            (Some(name), None) => (name.into_cow(), self.arguments),
            (None, Some(f)) if self.arguments.is_none() => (f.name.into_cow(), f.arguments),
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
        Ok(tool_call(name, arguments, self.id))
    }
}

#[derive(Deserialize)]
// The bound by hand: serde would ask `A: Default` for `Option<A>`'s default.
#[serde(deny_unknown_fields, bound(deserialize = "A: Deserialize<'de>"))]
struct Call<'a, A> {
    #[serde(default, borrow)]
    id: Option<Str<'a>>,
    #[serde(default, rename = "type")]
    #[allow(dead_code)]
    kind: Option<IgnoredAny>,
    #[serde(default, borrow)]
    name: Option<Str<'a>>,
    #[serde(default)]
    arguments: Option<A>,
    #[serde(default, borrow)]
    function: Option<Function<'a, A>>,
    /// The call's place in the list, as a streamed answer's deltas and Mistral's
    /// calls carry it: the list's order is the calls' order.
    #[serde(default)]
    #[allow(dead_code)]
    index: Option<IgnoredAny>,
    /// Gemini's OpenAI-compatible calls: `{"google": {"thought_signature"}}`, the
    /// model's reasoning state, not the call.
    #[serde(default)]
    #[allow(dead_code)]
    extra_content: Option<IgnoredAny>,
}

#[derive(Deserialize)]
// The bound by hand: serde would ask `A: Default` for `Option<A>`'s default.
#[serde(deny_unknown_fields, bound(deserialize = "A: Deserialize<'de>"))]
struct Function<'a, A> {
    #[serde(borrow)]
    name: Str<'a>,
    #[serde(default)]
    arguments: Option<A>,
    /// Ollama's: the call's place in the list (the list's order is the calls').
    #[serde(default)]
    #[allow(dead_code)]
    index: Option<IgnoredAny>,
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

/// A tool call named `name` (not empty: the caller checks it, to say where), with
/// its arguments as a call keeps them and its id where it has one.
pub(super) fn tool_call<'a, A: ArgumentsText<'a>>(
    name: Cow<'a, str>,
    arguments: Option<A>,
    id: Option<Str<'a>>,
) -> ToolCall<'a> {
    let call = ToolCall::with_arguments(name, arguments_of(arguments));
    match id {
        Some(id) => call.with_id(id.into_cow()),
        None => call,
    }
}

/// A call of `name` running the shell command `command`, its arguments
/// `{"command": ...}`: how the coding agents whose commands are parsed from the
/// model's text (mini-swe-agent's, SWE-agent's) call them, as their tool-calling
/// models do.
pub(super) fn command_call<'a>(name: impl Into<Cow<'a, str>>, command: &str) -> ToolCall<'a> {
    ToolCall::new(name, serde_json::json!({ "command": command }).to_string())
}

/// A tool's result names its tool: OpenAI's `name` on a tool's message, read as its
/// responder, is its tool's name too (CrewAI's messages, locus's).
#[inline]
pub(super) fn name_its_tool(message: &mut Message<'_>) {
    if message.role == Role::Agent
        && message.tool_name().is_none()
        && let Some(tool) = message.responder.clone()
    {
        message.rare().tool_name = Some(tool);
    }
}

/// `message` failed: its text is the error, or `otherwise` when it has none.
pub(super) fn failed<'a>(message: Message<'a>, otherwise: impl Into<Cow<'a, str>>) -> Message<'a> {
    let error = match &message.content {
        text if text.is_empty() => otherwise.into(),
        text => text.clone(),
    };
    message.with_error(error)
}

/// Arguments as a call keeps them (empty when there are none).
pub(super) fn arguments_of<'a, A: ArgumentsText<'a>>(arguments: Option<A>) -> CallArguments<'a> {
    arguments.map_or_else(CallArguments::default, ArgumentsText::into_arguments)
}

impl<'de, A: ArgumentsText<'de>> Line<'de, A> {
    /// Whether the role is written as Langroid writes its entities (`LLM`, `Agent`,
    /// `User`, `System`): a Langroid-shaped log.
    pub(super) fn langroid_role(&self) -> bool {
        is_langroid_role(&self.role.0)
    }

    /// The message this line describes, or what is wrong with it. The results of
    /// tools that an Anthropic message carries as `tool_result` blocks come before it,
    /// each a message of its own, in `results`; a message that holds nothing but those
    /// is not a message itself (`None`).
    pub(super) fn into_message(
        self,
        results: &mut Out<'de>,
    ) -> Result<Option<Message<'de>>, String> {
        let role: Role = self.role.0.parse().map_err(|e| format!("{e}"))?;
        let mut found = Found::default();
        let content = parts::with_refusal(
            parts::text(self.content, &mut found)?,
            self.refusal.map(Str::into_cow),
        );
        let tool_calls = match self.tool_calls {
            Some(calls) => calls.calls?,
            None => Vec::new(),
        };
        let mut tool_calls = parts::appended(tool_calls, found.calls);
        let only_results = !found.results.is_empty() && content.is_empty() && tool_calls.is_empty();
        if !found.results.is_empty() {
            let responder = self.responder.as_ref().or(self.name.as_ref());
            results.extend(found.results.into_iter().map(|r| match responder {
                Some(name) => r.with_responder(name.0.clone()),
                None => r,
            }));
        }
        let has_calls = !tool_calls.is_empty() || self.function_call.is_some();
        if self.no_response && (!content.is_empty() || has_calls) {
            return Err("a message with \"no_response\": true has content or tool calls".into());
        }
        if let Some(f) = self.function_call {
            if f.name.is_empty() {
                return Err("\"function_call\" has an empty name".into());
            }
            tool_calls.push(ToolCall::with_arguments(
                f.name.into_cow(),
                arguments_of(f.arguments),
            ));
        }
        if self.tool_name.as_ref().is_some_and(Str::is_empty) {
            return Err("\"tool_name\" is empty".into());
        }
        if self.handoff.as_ref().is_some_and(Str::is_empty) {
            return Err("\"handoff\" names no agent".into());
        }
        // Built whole, not through the `with_*` methods: each of those moves the whole
        // message.
        let rare = crate::message::Rare {
            error: self.error.map(Str::into_cow),
            confidence: self.confidence,
            reward: self.reward,
            // A map: its names are distinct.
            metrics: (self.metrics.into_iter().flatten())
                .map(|(n, v)| (Cow::Owned(n), v))
                .collect(),
            elapsed: (self.elapsed_ms).map(std::time::Duration::from_millis),
            stop: self.stop,
            handoff: self.handoff.map(Str::into_cow),
            tool_name: self.tool_name.map(Str::into_cow),
            input: self.input,
        };
        // A user turn that only carries tool results (Anthropic's) is those results.
        if only_results && rare.is_empty() && self.usage.is_none() && !self.no_response {
            return Ok(None);
        }
        Ok(Some(Message {
            role,
            no_response: self.no_response,
            responder: self.responder.or(self.name).map(Str::into_cow),
            content,
            tool_calls,
            usage: self.usage.map(|u| Usage {
                input_tokens: u.input_tokens,
                output_tokens: u.output_tokens,
            }),
            tool_call_id: self.tool_call_id.map(Str::into_cow),
            rare: (!rare.is_empty()).then(|| Box::new(rare)),
        }))
    }
}

/// Whether `role` is written as Langroid writes its entities (`LLM`, `Agent`, `User`,
/// `System`): a Langroid-shaped log, whose content may hold Langroid's tool JSON.
pub(super) fn is_langroid_role(role: &str) -> bool {
    matches!(role, "LLM" | "Agent" | "User" | "System")
}

/// Token counts written as `{"input_tokens", "output_tokens"}`, each counting all of
/// its side (LangChain's `usage_metadata`, whose input counts cache reads and writes;
/// smolagents' `token_usage`); totals and details are not read. (Not
/// [`ProviderUsage`]: these have none of its other names, whose matching cost 360
/// instructions a message in LangChain's, measured.)
#[derive(Deserialize)]
pub(super) struct TokenCounts {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
}

impl From<Usage> for TokenCounts {
    /// The counts the fast path's scanner read.
    fn from(usage: Usage) -> TokenCounts {
        TokenCounts {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
        }
    }
}

impl From<TokenCounts> for Usage {
    fn from(counts: TokenCounts) -> Usage {
        Usage {
            input_tokens: counts.input_tokens,
            output_tokens: counts.output_tokens,
        }
    }
}

/// Token usage as a provider's response reports it (OpenAI's Chat Completions and
/// Responses, Anthropic's, AutoGen's `models_usage`). Cache writes and reads count as
/// input: Anthropic reports them apart from `input_tokens`, OpenAI within its prompt
/// tokens. Other fields (totals, details) are not read.
#[derive(Deserialize, Default)]
pub(super) struct ProviderUsage {
    #[serde(default, alias = "prompt_tokens")]
    pub(super) input_tokens: Option<u64>,
    #[serde(default, alias = "completion_tokens")]
    pub(super) output_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_read_input_tokens: Option<u64>,
}

impl ProviderUsage {
    /// The usage a message carries.
    pub(super) fn into_usage(self) -> Usage {
        let input = [
            self.input_tokens,
            self.cache_creation_input_tokens,
            self.cache_read_input_tokens,
        ];
        Usage {
            input_tokens: input.into_iter().flatten().fold(0, u64::saturating_add),
            output_tokens: self.output_tokens.unwrap_or(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Key, LINE_FIELDS};

    /// `LINE_FIELDS` lists `Key`'s names, in its order, and nothing else: a key the
    /// list names is read as that key, and the error for an unknown one lists them.
    #[test]
    fn line_fields_are_the_keys_in_order() {
        for (i, name) in LINE_FIELDS.iter().enumerate() {
            let key: Key = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            assert_eq!(key as usize, i, "{name}");
        }
        let error = serde_json::from_str::<Key>("\"contnet\"").unwrap_err();
        let expected = LINE_FIELDS
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", ");
        assert!(error.to_string().contains(&expected), "{error}");
    }

    /// `IGNORED_KEYS` (taken from `LINE_FIELDS` by place) is what the serde path reads
    /// and ignores, and only that: a line with one of them (any JSON) reads as the
    /// line without it, twice is a duplicate; a key before them is read.
    #[test]
    fn the_ignored_keys_are_the_keys_read_and_ignored() {
        use super::{IGNORED_KEYS, JsonLine};
        let read = |line: &str| {
            let line: JsonLine<'_> = serde_json::from_str(line).map_err(|e| e.to_string())?;
            let mut results = super::Out::new();
            line.into_message(&mut results).map(|m| format!("{m:?}"))
        };
        let without = read(r#"{"role": "assistant", "content": "x"}"#).unwrap();
        for key in IGNORED_KEYS {
            let once = format!(r#"{{"role": "assistant", "content": "x", "{key}": {{"a": [1]}}}}"#);
            assert_eq!(read(&once), Ok(without.clone()), "{key}");
            let twice =
                format!(r#"{{"role": "assistant", "content": "x", "{key}": 1, "{key}": 2}}"#);
            assert!(
                read(&twice).unwrap_err().contains("duplicate field"),
                "{key}"
            );
        }
        let before = LINE_FIELDS[LINE_FIELDS.len() - IGNORED_KEYS.len() - 1];
        assert_eq!(before, "refusal");
        let refused = read(r#"{"role": "assistant", "content": "x", "refusal": "no"}"#);
        assert_ne!(refused, Ok(without));
    }
}
