//! Inspect AI's eval samples: one sample of an eval log (`EvalSample`, as a `.eval`
//! log keeps each in its own `samples/<id>_epoch_<n>.json`), or an eval log written
//! as JSON (`--log-format=json`) holding one sample (the corpus reads one of several
//! a sample a run, by [`json_log_samples`]).
//!
//! A sample's `messages` are Inspect's chat messages: `system`, `user`, `assistant`
//! (its `tool_calls`, each `{"id", "function", "arguments"}` with the arguments an
//! object) and `tool` (the result of the call its `tool_call_id` names, of the tool
//! its `function` names, failed where it has an `error`). Content is a string or a
//! list of Inspect's content parts: `text` is text; `reasoning` (the model's
//! thoughts, not its answer) and media (`image`, `audio`, `video`, `document`,
//! `data`) are not text; `tool_use` is a call the provider ran itself. A text that
//! Inspect moved into the sample's `attachments` (`attachment://<hash>`, as earlier
//! releases did with long texts) is read as the text it stands for.
//!
//! Inspect keeps no usage on a message: each model call's is on its `model` event,
//! whose output's message has the id of the message the call added, so a model's
//! message has the usage of the event whose output it is (none where the sample
//! keeps no events, or the message no id). A call's input tokens are its total less
//! its output: Inspect's total counts cache reads and writes, which some providers
//! report apart from the input.
//!
//! The sample's `error` (the exception that ended it) is a last message, the
//! agent's, failed with the error's message. Its `limit` (a message, token, time or
//! other limit that ended it), `output` (the last model output again), `scores`,
//! `metadata`, `store` and the other events say how the run ended or was scored, and
//! are not messages.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::fast;
use super::record::{self, Checked, Failure, Out, each, parse};
use super::wire::{Listed, RawArguments, Str, StringOrList, tool_call};
use crate::{Message, ToolCall, Usage};

/// How a text moved into the sample's attachments is written in its place.
const ATTACHMENT: &str = "attachment://";

/// A sample, read in one pass: its messages (`M`, each read or kept as its text) and
/// what they are read with.
#[derive(Deserialize)]
#[serde(bound(deserialize = "'de: 'a, M: Deserialize<'de>"))]
pub(in crate::transcript) struct Sample<'a, M> {
    pub(in crate::transcript) messages: Vec<M>,
    #[serde(default, borrow)]
    pub(in crate::transcript) events: Option<Vec<Event<'a>>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) attachments: Option<HashMap<String, Str<'a>>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) error: Option<SampleError<'a>>,
}

/// An eval log written as JSON: its samples (the rest describes the eval: its task,
/// plan, results, statistics).
#[derive(Deserialize)]
pub(in crate::transcript) struct Log<'a> {
    #[serde(default, borrow)]
    pub(in crate::transcript) samples: Option<Vec<&'a RawValue>>,
}

/// One of the sample's events, the fields read: a model call's output (the other
/// events, and a call's input, tools and configuration, are not read).
#[derive(Deserialize)]
pub(in crate::transcript) struct Event<'a> {
    #[serde(borrow)]
    pub(in crate::transcript) event: Str<'a>,
    #[serde(default, borrow)]
    pub(in crate::transcript) output: Option<Output<'a>>,
}

#[derive(Deserialize)]
pub(in crate::transcript) struct Output<'a> {
    #[serde(default, borrow)]
    pub(in crate::transcript) choices: Vec<Choice<'a>>,
    #[serde(default)]
    pub(in crate::transcript) usage: Option<ModelUsage>,
}

#[derive(Deserialize)]
pub(in crate::transcript) struct Choice<'a> {
    #[serde(borrow)]
    pub(in crate::transcript) message: MessageId<'a>,
}

#[derive(Deserialize)]
pub(in crate::transcript) struct MessageId<'a> {
    #[serde(default, borrow)]
    pub(in crate::transcript) id: Option<Str<'a>>,
}

/// Inspect's `ModelUsage`, the fields read.
#[derive(Deserialize, Default)]
pub(in crate::transcript) struct ModelUsage {
    #[serde(default)]
    pub(in crate::transcript) input_tokens: u64,
    #[serde(default)]
    pub(in crate::transcript) output_tokens: u64,
    #[serde(default)]
    pub(in crate::transcript) total_tokens: Option<u64>,
}

impl ModelUsage {
    /// The call's usage: its input the total less the output (where there is a
    /// total), which counts the cache reads and writes some providers report apart.
    fn into_usage(self) -> Usage {
        let input = match self.total_tokens {
            Some(total) if total >= self.output_tokens => total - self.output_tokens,
            _ => self.input_tokens,
        };
        Usage {
            input_tokens: input,
            output_tokens: self.output_tokens,
        }
    }
}

/// The exception that ended the sample (its traceback not read).
#[derive(Deserialize)]
pub(in crate::transcript) struct SampleError<'a> {
    #[serde(borrow)]
    pub(in crate::transcript) message: Str<'a>,
}

/// One chat message, the fields read (the others: its `source`, `metadata`, the
/// model that wrote it, a tool call's view).
#[derive(Deserialize, Default)]
pub(in crate::transcript) struct ChatMessage<'a> {
    #[serde(borrow)]
    pub(in crate::transcript) role: Str<'a>,
    #[serde(default, borrow)]
    pub(in crate::transcript) id: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) content: Option<StringOrList<'a, Part<'a>>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) tool_calls: Option<Vec<Call<'a>>>,
    /// A tool message's call; a user message's, the calls whose output it carries (a
    /// list: an image a tool returned), not read.
    #[serde(default, borrow, deserialize_with = "super::wire::optional_json_text")]
    pub(in crate::transcript) tool_call_id: Option<&'a str>,
    /// A tool message's tool.
    #[serde(default, borrow)]
    pub(in crate::transcript) function: Option<Str<'a>>,
    /// A tool message's error (`{"type", "message"}`).
    #[serde(default, borrow)]
    pub(in crate::transcript) error: Option<ToolError<'a>>,
}

/// A model's tool call: its tool (`function`), arguments (an object) and id.
#[derive(Deserialize)]
pub(in crate::transcript) struct Call<'a> {
    #[serde(default, borrow)]
    pub(in crate::transcript) id: Option<Str<'a>>,
    #[serde(borrow)]
    pub(in crate::transcript) function: Str<'a>,
    #[serde(default, borrow)]
    pub(in crate::transcript) arguments: Option<RawArguments<'a>>,
}

#[derive(Deserialize)]
pub(in crate::transcript) struct ToolError<'a> {
    #[serde(default, rename = "type", borrow)]
    pub(in crate::transcript) kind: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) message: Option<Str<'a>>,
}

/// One content part: the union of the fields the part types read here carry.
#[derive(Deserialize)]
pub(in crate::transcript) struct Part<'a> {
    #[serde(rename = "type", borrow)]
    pub(in crate::transcript) kind: Str<'a>,
    #[serde(default, borrow)]
    pub(in crate::transcript) text: Option<Str<'a>>,
    /// A `tool_use` part's call.
    #[serde(default, borrow)]
    pub(in crate::transcript) id: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) name: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub(in crate::transcript) arguments: Option<RawArguments<'a>>,
}

impl Listed for Part<'_> {
    const EXPECTING: &'static str = "a string or a list of Inspect content parts";
}

/// The content part types that hold no text: the model's reasoning, media, data.
const SILENT: &[&str] = &["reasoning", "image", "audio", "video", "document", "data"];

/// The messages of the sample `text`.
pub(super) fn read_sample<'a>(text: &'a str, out: &mut Out<'a>) -> Result<(), Failure<'a>> {
    // One pass over the messages (a sample is mostly its events and messages); where
    // anything is wrong, a second, which says which message.
    let start = out.len();
    let read = record::scan_or_parse::<Sample<'a, ChatMessage<'a>>>(text, fast::inspect::sample);
    if let Ok(sample) = read {
        let mut rules = Rules::of(sample.events, sample.attachments);
        let read = sample
            .messages
            .into_iter()
            .try_for_each(|message| rules.read(message, text, out));
        if read.is_ok() {
            push_error(sample.error, out);
            return Ok(());
        }
        out.truncate(start);
    }
    let located: Sample<'a, &'a RawValue> = parse(text)?;
    let mut rules = Rules::of(located.events, located.attachments);
    each(
        located.messages,
        |message, within, out| rules.read(message, within, out),
        out,
    )?;
    push_error(located.error, out);
    Ok(())
}

/// The messages of the eval log `text`: its one sample's. A log of several samples
/// holds several runs, which one transcript is not.
pub(super) fn read_log<'a>(text: &'a str, out: &mut Out<'a>) -> Result<(), Failure<'a>> {
    let samples = match fast::inspect::log_samples(text) {
        Some(samples) => {
            // Read whole by the scanner: no deeper than its limit, not walked.
            record::known_shallow(text);
            samples
        }
        None => parse::<Log<'a>>(text)?
            .samples
            .map(|samples| samples.into_iter().map(RawValue::get).collect()),
    };
    match samples.as_deref() {
        Some([sample]) => {
            // A value of the log, whose nesting is known (walked by `parse`, or read
            // whole by the scanner): not walked again.
            let _checked = Checked::new(sample);
            read_sample(sample, out)
        }
        // Its header alone, or an eval logged without them: no message (which the
        // corpus and the CLI say).
        None | Some([]) => Ok(()),
        Some(samples) => Err(Failure::message(
            text,
            format!(
                "an Inspect eval log of {} samples, each its own run: check it as a corpus \
                 (`doneseq check`, `check_files`, reads each sample as a run)",
                samples.len()
            ),
        )),
    }
}

/// The sample's error, a last message, failed.
fn push_error<'a>(error: Option<SampleError<'a>>, out: &mut Out<'a>) {
    if let Some(error) = error {
        out.push(Message::agent("").with_error(error.message.into_cow()));
    }
}

/// What a sample's messages are read with: each model call's usage by the id of the
/// message it added, and the texts moved into attachments.
struct Rules<'a> {
    usage: HashMap<Cow<'a, str>, Usage>,
    attachments: HashMap<String, Cow<'a, str>>,
}

impl<M> Default for Sample<'_, M> {
    fn default() -> Self {
        Sample {
            messages: Vec::new(),
            events: None,
            attachments: None,
            error: None,
        }
    }
}

impl<'a> Rules<'a> {
    fn of(
        events: Option<Vec<Event<'a>>>,
        attachments: Option<HashMap<String, Str<'a>>>,
    ) -> Rules<'a> {
        let usage = events
            .into_iter()
            .flatten()
            .filter(|e| e.event.0 == "model")
            .filter_map(|e| {
                let output = e.output?;
                let usage = output.usage?;
                let id = output.choices.into_iter().next()?.message.id?;
                Some((id.into_cow(), usage.into_usage()))
            })
            .collect();
        let attachments = attachments
            .into_iter()
            .flatten()
            .map(|(hash, text)| (hash, text.into_cow()))
            .collect();
        Rules { usage, attachments }
    }

    /// `text`, or the attachment it refers to.
    fn resolve(&self, text: Cow<'a, str>) -> Cow<'a, str> {
        match text
            .strip_prefix(ATTACHMENT)
            .and_then(|h| self.attachments.get(h))
        {
            Some(attached) => attached.clone(),
            None => text,
        }
    }

    /// The message of one of the sample's messages.
    fn read(
        &mut self,
        message: ChatMessage<'a>,
        within: &'a str,
        out: &mut Out<'a>,
    ) -> Result<(), Failure<'a>> {
        let fail = |m: String| Failure::message(within, m);
        let mut in_content = Vec::new();
        let text = self
            .content(message.content, &mut in_content)
            .map_err(fail)?;
        let role = &*message.role.0;
        if !in_content.is_empty() && role != "assistant" {
            return Err(fail(format!(
                "a {role} message holds a tool_use part (only the model's do)"
            )));
        }
        let read = match role {
            "system" => Message::system(text),
            "user" => Message::user(text),
            "assistant" => {
                let mut read = Message::llm(text);
                for (i, call) in message.tool_calls.into_iter().flatten().enumerate() {
                    if call.function.is_empty() {
                        return Err(fail(format!("tool call {i} has an empty \"function\"")));
                    }
                    let call = tool_call(call.function.into_cow(), call.arguments, call.id);
                    read = read.with_tool_call(call);
                }
                read = in_content.into_iter().fold(read, Message::with_tool_call);
                if let Some(usage) = message.id.and_then(|id| self.usage.remove(&id.0)) {
                    read = read.with_usage(usage);
                }
                read
            }
            "tool" => {
                let mut read = Message::agent(text);
                if let Some(tool) = message.function {
                    read = read.with_tool_name(tool.into_cow());
                }
                if let Some(id) = message.tool_call_id {
                    let id: Str<'a> = serde_json::from_str(id).map_err(|e| {
                        fail(format!(
                            "a tool message's tool_call_id is not a string ({e})"
                        ))
                    })?;
                    read = read.with_tool_call_id(id.into_cow());
                }
                if let Some(error) = message.error {
                    read = read.with_error(tool_error(error));
                }
                read
            }
            other => {
                return Err(fail(format!(
                    "an Inspect message of role \"{other}\" (expected system, user, \
                     assistant or tool)"
                )));
            }
        };
        out.push(read);
        Ok(())
    }

    /// The text of a message's content (its text parts joined by newlines), with the
    /// calls its `tool_use` parts hold added to `calls`.
    fn content(
        &self,
        content: Option<StringOrList<'a, Part<'a>>>,
        calls: &mut Vec<ToolCall<'a>>,
    ) -> Result<Cow<'a, str>, String> {
        let parts = match content {
            None => return Ok(Cow::Borrowed("")),
            Some(StringOrList::Text(text)) => return Ok(self.resolve(text)),
            Some(StringOrList::List(parts)) => parts,
        };
        let mut text: Option<Cow<'a, str>> = None;
        for (i, part) in parts.into_iter().enumerate() {
            match &*part.kind.0 {
                "text" => {
                    let piece = part.text.ok_or_else(|| {
                        format!("content part {i} of type \"text\" has no \"text\"")
                    })?;
                    let piece = self.resolve(piece.into_cow());
                    text = Some(super::parts::join(text, piece));
                }
                "tool_use" => {
                    let name = part.name.filter(|n| !n.is_empty()).ok_or_else(|| {
                        format!("content part {i} of type \"tool_use\" has no \"name\"")
                    })?;
                    calls.push(tool_call(name.into_cow(), part.arguments, part.id));
                }
                kind if SILENT.contains(&kind) => {}
                other => {
                    return Err(format!(
                        "content part {i} has an unknown type \"{other}\" (expected one of \
                         text, tool_use, {})",
                        SILENT.join(", ")
                    ));
                }
            }
        }
        Ok(text.unwrap_or(Cow::Borrowed("")))
    }
}

/// A tool's error as a message's: its message, else its type.
fn tool_error(error: ToolError<'_>) -> Cow<'_, str> {
    match (error.message, error.kind) {
        (Some(message), _) if !message.is_empty() => message.into_cow(),
        (_, Some(kind)) if !kind.is_empty() => Cow::Owned(format!("the tool failed ({})", kind.0)),
        _ => Cow::Borrowed("the tool failed"),
    }
}

/// A sample of an eval log written as JSON: where its text is in the log, and its
/// name (`<id>_epoch_<n>`, as a `.eval` log names its members).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PlacedSample {
    /// Its first byte's offset in the log.
    pub(crate) start: usize,
    /// Its length in bytes.
    pub(crate) len: usize,
    pub(crate) name: String,
}

/// Whether `head`, a file's first bytes, starts an Inspect eval log written as JSON:
/// an object whose first key is `version` and which names `eval` soon after (as
/// Inspect writes a log, compact or indented).
pub(crate) fn is_json_log(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let text = String::from_utf8_lossy(head);
    super::first_key::first_key(&text) == Some("version")
        && memchr::memmem::find(head, b"\"eval\"").is_some()
}

/// The samples of the eval log `text` (JSON), where it holds more than one; `None`
/// where it is not a log of samples or holds one (its reader reads it, or says what
/// is wrong).
pub(crate) fn json_log_samples(text: &str) -> Option<Vec<PlacedSample>> {
    let samples = match fast::inspect::log_samples(text) {
        Some(samples) => samples?,
        None => {
            let log: Log<'_> = serde_json::from_str(text).ok()?;
            log.samples?.into_iter().map(RawValue::get).collect()
        }
    };
    if samples.len() < 2 {
        return None;
    }
    Some(
        samples
            .into_iter()
            .enumerate()
            .map(|(i, sample)| PlacedSample {
                start: super::offset_in(sample, text),
                len: sample.len(),
                name: sample_name(sample).unwrap_or_else(|| format!("sample_{}", i + 1)),
            })
            .collect(),
    )
}

/// A sample's name, `<id>_epoch_<n>`, from its `id` and `epoch` (its first keys, as
/// Inspect writes it: read without reading the rest).
fn sample_name(sample: &str) -> Option<String> {
    struct Head(Option<String>, Option<u64>);
    impl<'de> serde::de::Visitor<'de> for &mut Head {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a sample")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                match &*key {
                    "id" => {
                        self.0 = match map.next_value::<serde_json::Value>()? {
                            serde_json::Value::String(id) => Some(id),
                            other => Some(other.to_string()),
                        };
                    }
                    "epoch" => self.1 = Some(map.next_value()?),
                    _ => map.next_value::<serde::de::IgnoredAny>().map(|_| ())?,
                }
                if self.0.is_some() && self.1.is_some() {
                    // Both read: the rest is not (the error ends the reading).
                    return Err(serde::de::Error::custom("read"));
                }
            }
            Ok(())
        }
    }
    let mut head = Head(None, None);
    let mut de = serde_json::Deserializer::from_str(sample);
    let _ = serde::Deserializer::deserialize_map(&mut de, &mut head);
    Some(format!("{}_epoch_{}", head.0?, head.1?))
}
