//! Inspect AI's samples scanned straight from their bytes into the [`Sample`] the
//! serde path reads, converted by the same rules: its messages (each one's role, id,
//! content, calls, a tool message's call, tool and error), its events (a model
//! call's output, the message it added and its usage; the rest of each event, most
//! of a sample's bytes, skipped), its attachments and its error. Anything the scanner
//! is not sure of gives up, and the serde path reads the sample.

use std::collections::HashMap;

use super::scan::{DEPTH, Scan, Seen};
use crate::transcript::inspect::{
    Call, ChatMessage, Choice, Event, MessageId, ModelUsage, Output, Part, Sample, SampleError,
    ToolError,
};
use crate::transcript::wire::{Str, StringOrList};

/// The sample in `text` (a trimmed document, or a log's sample) into `sample` (a
/// default one), if the scanner is sure of it: the keys the serde path reads, any
/// other key skipped (as serde does). `None` otherwise, `sample` then partly filled.
#[inline(never)]
pub(in crate::transcript) fn sample<'a>(
    text: &'a str,
    sample: &mut Sample<'a, ChatMessage<'a>>,
) -> Option<()> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        s.object(|s| {
            match_key!(s, {
                b"messages" => {
                    seen.once(0)?;
                    s.elements(2, |s| {
                        sample.messages.push(s.inspect_message(3)?);
                        Some(())
                    })?;
                },
                b"events" => {
                    seen.once(1)?;
                    sample.events = s.nullable(|s| s.array(2, |s| s.inspect_event(3)))?;
                },
                b"attachments" => {
                    seen.once(2)?;
                    sample.attachments = s.nullable(|s| s.attachments())?;
                },
                b"error" => {
                    seen.once(3)?;
                    sample.error = s.nullable(|s| s.sample_error(2))?;
                },
                _ | b"id" | b"epoch" | b"input" | b"target" | b"output" | b"scores"
                | b"metadata" | b"store" | b"model_usage" | b"total_time"
                | b"working_time" | b"uuid" | b"error_retries" | b"limit" | b"sandbox"
                | b"files" | b"setup" | b"choices" | b"started_at" | b"completed_at"
                | b"invalidation" | b"role_usage" => s.skip(2)?,
            });
            Some(())
        })?;
        // `messages` is required, as serde reads it.
        seen.has(0).then_some(())
    })
}

/// The samples of the eval log in `text` (a trimmed document), each its JSON text,
/// if the scanner is sure of it: `Some(None)` for a log without them (its header
/// alone), as serde reads `samples`; everything else about the eval skipped.
#[inline(never)]
pub(in crate::transcript) fn log_samples(text: &str) -> Option<Option<Vec<&str>>> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        let mut samples = None;
        s.object(|s| {
            match_key!(s, {
                b"samples" => {
                    seen.once(0)?;
                    samples = s.nullable(|s| s.array(2, |s| s.raw(3)))?;
                },
                _ | b"version" | b"status" | b"eval" | b"plan" | b"results" | b"stats"
                | b"error" | b"invalidated" | b"reductions" | b"location" | b"etag" => {
                    s.skip(2)?;
                },
            });
            Some(())
        })?;
        Some(samples)
    })
}

impl<'a> Scan<'a> {
    /// One of the sample's messages, its braces at nesting `depth`: the fields serde's
    /// `ChatMessage` reads, any other key skipped.
    fn inspect_message(&mut self, depth: usize) -> Option<ChatMessage<'a>> {
        if depth > DEPTH {
            return None;
        }
        let mut seen = Seen::default();
        let mut message = ChatMessage::default();
        let mut role = None;
        let inner = depth + 1;
        self.object(|s| {
            match_key!(s, {
                b"role" => {
                    seen.once(0)?;
                    role = Some(Str(s.string()?));
                },
                b"content" => {
                    seen.once(1)?;
                    message.content = s.nullable(|s| {
                        if s.peek()? == b'"' {
                            return s.string().map(StringOrList::Text);
                        }
                        s.array(inner, |s| s.inspect_part(inner + 1))
                            .map(StringOrList::List)
                    })?;
                },
                b"id" => {
                    seen.once(2)?;
                    message.id = s.str()?;
                },
                b"tool_calls" => {
                    seen.once(3)?;
                    message.tool_calls =
                        s.nullable(|s| s.array(inner, |s| s.inspect_call(inner + 1)))?;
                },
                b"tool_call_id" => {
                    seen.once(4)?;
                    message.tool_call_id = s.nullable(|s| s.raw(inner))?;
                },
                b"function" => {
                    seen.once(5)?;
                    message.function = s.str()?;
                },
                b"error" => {
                    seen.once(6)?;
                    message.error = s.nullable(|s| s.tool_error(inner))?;
                },
                _ | b"source" | b"metadata" | b"model" | b"internal" => s.skip(inner)?,
            });
            Some(())
        })?;
        message.role = role?;
        Some(message)
    }

    /// A content part, its braces at nesting `depth`.
    fn inspect_part(&mut self, depth: usize) -> Option<Part<'a>> {
        let mut seen = Seen::default();
        let (mut kind, mut text, mut id, mut name, mut arguments) = (None, None, None, None, None);
        let inner = depth + 1;
        self.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    kind = Some(Str(s.string()?));
                },
                b"text" => {
                    seen.once(1)?;
                    text = s.str()?;
                },
                b"id" => {
                    seen.once(2)?;
                    id = s.str()?;
                },
                b"name" => {
                    seen.once(3)?;
                    name = s.str()?;
                },
                b"arguments" => {
                    seen.once(4)?;
                    arguments = s.raw_arguments(inner)?;
                },
                _ | b"refusal" | b"citations" | b"internal" | b"reasoning" | b"signature"
                | b"redacted" | b"summary" => s.skip(inner)?,
            });
            Some(())
        })?;
        Some(Part {
            kind: kind?,
            text,
            id,
            name,
            arguments,
        })
    }

    /// A model's tool call, its braces at nesting `depth`.
    fn inspect_call(&mut self, depth: usize) -> Option<Call<'a>> {
        let mut seen = Seen::default();
        let (mut id, mut function, mut arguments) = (None, None, None);
        let inner = depth + 1;
        self.object(|s| {
            match_key!(s, {
                b"id" => {
                    seen.once(0)?;
                    id = s.str()?;
                },
                b"function" => {
                    seen.once(1)?;
                    function = Some(Str(s.string()?));
                },
                b"arguments" => {
                    seen.once(2)?;
                    arguments = s.raw_arguments(inner)?;
                },
                _ | b"type" | b"internal" | b"parse_error" | b"view" => s.skip(inner)?,
            });
            Some(())
        })?;
        Some(Call {
            id,
            function: function?,
            arguments,
        })
    }

    /// A tool message's error (`{"type", "message"}`), its braces at nesting `depth`.
    fn tool_error(&mut self, depth: usize) -> Option<ToolError<'a>> {
        let mut seen = Seen::default();
        let (mut kind, mut message) = (None, None);
        self.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    kind = s.str()?;
                },
                b"message" => {
                    seen.once(1)?;
                    message = s.str()?;
                },
                _ => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(ToolError { kind, message })
    }

    /// One of the sample's events, its braces at nesting `depth`: its kind and a model
    /// call's output; the rest (the call's input, tools, configuration; any other
    /// event's fields) skipped.
    fn inspect_event(&mut self, depth: usize) -> Option<Event<'a>> {
        let mut seen = Seen::default();
        let (mut event, mut output) = (None, None);
        let inner = depth + 1;
        self.object(|s| {
            match_key!(s, {
                b"event" => {
                    seen.once(0)?;
                    event = Some(Str(s.string()?));
                },
                b"output" => {
                    seen.once(1)?;
                    output = s.nullable(|s| s.model_output(inner))?;
                },
                _ | b"timestamp" | b"working_start" | b"pending" | b"uuid" | b"span_id"
                | b"metadata" | b"model" | b"role" | b"input" | b"tools" | b"tool_choice"
                | b"config" | b"retries" | b"error" | b"cache" | b"call" | b"completed"
                | b"working_time" | b"id" | b"function" | b"arguments" | b"result"
                | b"changes" | b"name" | b"type" | b"view" | b"events" | b"agent"
                | b"failed" | b"message_id" | b"internal" | b"source" | b"data" => {
                    s.skip(inner)?;
                },
            });
            Some(())
        })?;
        Some(Event {
            event: event?,
            output,
        })
    }

    /// A model call's output, its braces at nesting `depth`: the id of each choice's
    /// message and the call's usage.
    fn model_output(&mut self, depth: usize) -> Option<Output<'a>> {
        let mut seen = Seen::default();
        let (mut choices, mut usage) = (Vec::new(), None);
        let inner = depth + 1;
        self.object(|s| {
            match_key!(s, {
                b"choices" => {
                    seen.once(0)?;
                    // A list (serde's `Vec` refuses `null`).
                    choices = s.array(inner, |s| s.output_choice(inner + 1))?;
                },
                b"usage" => {
                    seen.once(1)?;
                    usage = s.nullable(|s| s.model_usage(inner))?;
                },
                _ | b"model" | b"time" | b"metadata" | b"error" | b"completion" => {
                    s.skip(inner)?;
                },
            });
            Some(())
        })?;
        Some(Output { choices, usage })
    }

    /// One of an output's choices, its braces at nesting `depth`: its message's id.
    fn output_choice(&mut self, depth: usize) -> Option<Choice<'a>> {
        let mut seen = Seen::default();
        let mut message = None;
        let inner = depth + 1;
        self.object(|s| {
            match_key!(s, {
                b"message" => {
                    seen.once(0)?;
                    let mut seen = Seen::default();
                    let mut id = None;
                    s.object(|s| {
                        match_key!(s, {
                            b"id" => {
                                seen.once(0)?;
                                id = s.str()?;
                            },
                            _ | b"content" | b"source" | b"metadata" | b"role"
                            | b"tool_calls" | b"model" | b"internal" => s.skip(inner + 1)?,
                        });
                        Some(())
                    })?;
                    message = Some(MessageId { id });
                },
                _ | b"stop_reason" | b"logprobs" => s.skip(inner)?,
            });
            Some(())
        })?;
        Some(Choice { message: message? })
    }

    /// A model call's usage, its braces at nesting `depth` (the counts serde reads as
    /// numbers, `null` refused where it is not optional, as serde refuses it).
    fn model_usage(&mut self, depth: usize) -> Option<ModelUsage> {
        let mut seen = Seen::default();
        let mut usage = ModelUsage::default();
        self.object(|s| {
            match_key!(s, {
                b"input_tokens" => {
                    seen.once(0)?;
                    usage.input_tokens = s.count()?;
                },
                b"output_tokens" => {
                    seen.once(1)?;
                    usage.output_tokens = s.count()?;
                },
                b"total_tokens" => {
                    seen.once(2)?;
                    usage.total_tokens = s.nullable(|s| s.count())?;
                },
                _ | b"input_tokens_cache_write" | b"input_tokens_cache_read"
                | b"reasoning_tokens" | b"total_cost" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(usage)
    }

    /// The texts moved into the sample's attachments, by their hash. (A key written
    /// twice: the last, as serde's map keeps it.)
    fn attachments(&mut self) -> Option<HashMap<String, Str<'a>>> {
        let mut attachments = HashMap::new();
        self.object(|s| {
            let key = std::str::from_utf8(s.key()?).ok()?.to_owned();
            attachments.insert(key, Str(s.string()?));
            Some(())
        })?;
        Some(attachments)
    }

    /// The exception that ended the sample, its braces at nesting `depth`.
    fn sample_error(&mut self, depth: usize) -> Option<SampleError<'a>> {
        let mut seen = Seen::default();
        let mut message = None;
        self.object(|s| {
            match_key!(s, {
                b"message" => {
                    seen.once(0)?;
                    message = Some(Str(s.string()?));
                },
                _ | b"traceback" | b"traceback_ansi" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(SampleError { message: message? })
    }
}
