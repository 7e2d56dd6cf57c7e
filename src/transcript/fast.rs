//! The fast path: the commonest records scanned straight from their bytes.
//!
//! A replay reads one record per step, and going through serde (a visitor, a struct
//! of twenty optional fields, the conversion into a [`Message`]) costs more than
//! scanning its bytes. This scanner knows each format's common records: a chat
//! message of the common fields (doneseq's, OpenAI's, Anthropic's content blocks),
//! OpenAI's `chat.completion` object, Anthropic's response message, OpenAI's
//! Responses items, AutoGen's messages and their tool calls and results, Bedrock
//! Converse messages, Agno's, LlamaIndex's, LangChain's and Agent Framework's
//! messages, Pydantic AI's requests and responses, Gemini's contents and ADK's
//! events, smolagents' steps, CrewAI's task outputs, rlm-code's run events, Claude
//! Code's and Codex's records, mini-swe-agent's trajectories and Inspect AI's samples
//! and JSON logs (each a whole document, whose nesting the reader then need not
//! walk). It builds a chat message directly,
//! and for the other records fills the struct serde fills, so that one conversion
//! reads both; texts are borrowed from the line where they have no escapes.
//!
//! It accepts only what it is sure of. Anything else (a key it does not know where
//! serde refuses unknown keys, a `null` role, a float where a count goes, an escape
//! it does not decode, a duplicate key, JSON nested deeper than [`scan::DEPTH`],
//! content the conversion refuses, anything wrong at all) makes it give up, and the
//! serde path reads the record: the same messages, or the error with its position.
//! So it never accepts what the serde path refuses, nor reads a record otherwise
//! (tests compare the two on every sample and on generated and damaged records).

// `s.nullable(|s| s.string())`, not `s.nullable(Scan::string)`: a method passed as a
// value is called through a shim the compiler leaves out of line (about 17
// instructions a string read), where a closure used in one place is inlined there.
#![allow(clippy::redundant_closure_for_method_calls)]

/// One member of an object (the cursor at its key), read by the arm of its key:
/// `match_key!(s, { b"role" => body, b"a" | b"b" => body, _ => other })`. Each key
/// is compared in place, its first byte before the rest, so that a known key is a few
/// loads and compares; only a key no arm names is scanned for its end (`other` runs
/// after it and its colon are consumed). A key written with escapes is never an
/// arm's: the scan of an unknown key gives up on it, as the scanner gives up on
/// anything it is not sure of. The last arm may name keys of its own,
/// `_ | b"id" | b"model" => other`: keys that producers write and no reader here
/// reads, for which `other` runs (most often a skip) at the cost of a known key, not
/// of the scan an unknown key costs. Or it may name the unknown key, `name @ _ =>
/// other`, for `other` to look at (its bytes, as written).
macro_rules! match_key {
    // Both forms below: the arms in turn, each key compared in place, then the key no
    // arm names scanned for its end and bound to `$unknown`.
    (@arms $s:ident, [$([$($key:literal)*] => $body:expr,)*] $unknown:pat => $other:expr) => {{
        let first = $s.key_first()?;
        $(
            if false $(|| (first == $key[0] && $s.key_is($key)))* {
                $s.colon()?;
                $body
            } else
        )*
        {
            let $unknown = $s.key()?;
            $other
        }
    }};
    ($s:ident, {
        $($($key:literal)|+ => $body:expr,)*
        $unknown:ident @ _ => $other:expr $(,)?
    }) => {
        match_key!(@arms $s, [$([$($key)*] => $body,)*] $unknown => $other)
    };
    // The last arm's own keys are one more arm, whose body is the unknown key's.
    ($s:ident, {
        $($($key:literal)|+ => $body:expr,)*
        _ $(| $common:literal)* => $other:expr $(,)?
    }) => {
        match_key!(@arms $s, [$([$($key)*] => $body,)* [$($common)*] => $other,] _ => $other)
    };
}

pub(super) mod agent_framework;
pub(super) mod agno;
pub(super) mod claude_code;
pub(super) mod codex;
pub(super) mod converse;
pub(super) mod crewai;
mod fields;
pub(super) mod gemini;
pub(super) mod inspect;
pub(super) mod langchain;
pub(super) mod llamaindex;
pub(super) mod mini_swe_agent;
pub(super) mod pydantic_ai;
pub(super) mod rlm_code;
mod scan;
pub(super) mod smolagents;
pub(super) mod swe_agent;

use std::borrow::Cow;

use self::scan::{Scan, Seen};
use super::autogen::{ExecutionResult, FunctionCall, Scanned};
use super::parts::{self, Found};
use super::responses::Item;
use super::wire::{IGNORED_KEYS, ProviderUsage, Str, is_langroid_role};
use super::{anthropic, autogen};
use crate::{Message, Role, ToolCall};

// The chat scanner's bits for the keys the serde path ignores (8 on) fit its set of
// the keys seen.
const _: () = assert!(8 + IGNORED_KEYS.len() <= 32);

/// A chat message the scanner read: the tool results its content carries (Anthropic's
/// `tool_result` blocks, each a message before it) and the message itself (`None`
/// when it holds nothing but those results). The caller gives an empty one to fill
/// (`Default`), where a returned one would be copied at each level it is returned
/// through (it is 160 bytes); what a scan that gives up leaves in it is not read.
#[derive(Default)]
pub(super) struct Chat<'a> {
    pub(super) results: Vec<Message<'a>>,
    pub(super) message: Option<Message<'a>>,
}

/// The chat message in `text` (a trimmed line) into `chat`, if the scanner is sure
/// of it; `None` otherwise, and the serde path reads it. A role spelled as Langroid
/// spells its entities is left to the serde path when `langroid_roles` is set: it
/// turns on the search for Langroid's tool JSON.
pub(super) fn message<'a>(text: &'a str, langroid_roles: bool, chat: &mut Chat<'a>) -> Option<()> {
    whole(text, |s| s.chat(1, langroid_roles, chat))
}

/// The message of an OpenAI `chat.completion` object (its one choice's message, with
/// the call's usage) into `chat`, if the scanner is sure of it. The object's other
/// keys (`id`, `model`, a choice's `finish_reason`, ...) are skipped, as serde does;
/// several choices are left to the serde path, which says why they are refused.
pub(super) fn completion<'a>(
    text: &'a str,
    langroid_roles: bool,
    chat: &mut Chat<'a>,
) -> Option<()> {
    whole(text, |s| {
        let mut seen = Seen::default();
        let mut usage = None;
        s.object(|s| {
            match_key!(s, {
                b"choices" => {
                    seen.once(0)?;
                    s.one_choice(langroid_roles, chat)?;
                },
                b"usage" => {
                    seen.once(1)?;
                    usage = s.nullable(|s| s.provider_usage(2))?;
                },
                // A chunk of a streamed completion is the serde path's to refuse, as
                // is any object but `chat.completion` (compared in place: most have
                // it, and decoding it to compare cost 90 instructions a completion).
                b"object" => {
                    seen.once(2)?;
                    if !(s.peek()? == b'"' && s.key_is(b"chat.completion")) {
                        return None;
                    }
                },
                _ | b"id" | b"created" | b"model" | b"system_fingerprint" | b"service_tier" => {
                    s.skip(2)?;
                },
            });
            Some(())
        })?;
        if !seen.has(0) {
            return None;
        }
        let last = match chat.message.as_mut() {
            Some(message) => Some(message),
            None => chat.results.last_mut(),
        };
        super::completion::add_usage(usage, last);
        Some(())
    })
}

/// An Anthropic response's message into `chat` (a default one) if the scanner is
/// sure of it: `"type": "message"`, `"role": "assistant"`, content blocks that hold
/// no tool results, and usage (`id`, `model`, `stop_reason` and any other key
/// skipped, as serde does), built by the conversion's [`anthropic::reply`]. `None`
/// otherwise, and the serde path reads the line (and says what is wrong, if
/// anything). (The message is built here, not a response struct filled for the
/// conversion to read: the struct's drops and moves cost 200 instructions a
/// message.)
pub(super) fn anthropic_response<'a>(text: &'a str, chat: &mut Chat<'a>) -> Option<()> {
    whole(text, |s| {
        let mut seen = Seen::default();
        let mut content = Cow::Borrowed("");
        let mut usage = None;
        let mut found = Found::default();
        s.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    (s.string_is(b"message")?).then_some(())?;
                },
                b"role" => {
                    seen.once(1)?;
                    (s.string_is(b"assistant")?).then_some(())?;
                },
                b"content" => {
                    seen.once(2)?;
                    content = s.content(2, &mut found)?;
                },
                b"usage" => {
                    seen.once(3)?;
                    usage = s.nullable(|s| s.provider_usage(2))?;
                },
                _ | b"id" | b"model" | b"stop_reason" | b"stop_sequence" | b"container" => {
                    s.skip(2)?;
                },
            });
            Some(())
        })?;
        // `type`, `role` and `content` are required, as serde reads them.
        (seen.has(0) && seen.has(1) && seen.has(2) && found.results.is_empty()).then_some(())?;
        chat.message = Some(anthropic::reply(content, found.calls, usage));
        Some(())
    })
}

/// An OpenAI Responses item into `item` (a default one), if the scanner is sure of it:
/// the struct serde fills (any key it does not read skipped, as serde does); `None`
/// otherwise, `item` then partly filled. (Filled where it is read: the struct is
/// large, and each move of it a copy.)
pub(super) fn responses_item<'a>(text: &'a str, item: &mut Item<'a>) -> Option<()> {
    whole(text, |s| s.responses_item::<1>(item))
}

impl<'a> Scan<'a> {
    /// A Responses item, its braces at nesting `DEPTH`, into `item` (a default one):
    /// a line's (at 1), or a Codex record's payload (at 2). (The nesting a constant:
    /// as a value, the line's scan was 100 instructions dearer.)
    #[inline(always)]
    pub(super) fn responses_item<const DEPTH: usize>(&mut self, item: &mut Item<'a>) -> Option<()> {
        let inner = DEPTH + 1;
        let mut seen = Seen::default();
        self.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    item.kind = s.str()?;
                },
                b"role" => {
                    seen.once(1)?;
                    item.role = s.str()?;
                },
                b"content" => {
                    seen.once(2)?;
                    item.content = s.nullable(|s| s.text_content(inner))?;
                },
                // The keys of the commonest items (messages, calls and their outputs)
                // first: each arm passed costs a comparison.
                b"id" => {
                    seen.once(10)?;
                    item.id = s.str()?;
                },
                b"call_id" => {
                    seen.once(9)?;
                    item.call_id = s.str()?;
                },
                b"name" => {
                    seen.once(3)?;
                    item.name = s.str()?;
                },
                b"arguments" => {
                    seen.once(4)?;
                    item.arguments = s.raw_arguments(inner)?;
                },
                b"output" => {
                    seen.once(11)?;
                    item.output = s.nullable(|s| s.text_content(inner))?;
                },
                b"status" => s.skip(inner)?,
                b"action" => {
                    seen.once(5)?;
                    item.action = s.raw_arguments(inner)?;
                },
                b"input" => {
                    seen.once(6)?;
                    item.input = s.raw_arguments(inner)?;
                },
                b"code" => {
                    seen.once(7)?;
                    item.code = s.raw_arguments(inner)?;
                },
                b"queries" => {
                    seen.once(8)?;
                    item.queries = s.raw_arguments(inner)?;
                },
                b"error" => {
                    seen.once(12)?;
                    item.error = s.str()?;
                },
                _ | b"summary" | b"encrypted_content" => s.skip(inner)?,
            });
            Some(())
        })
    }
}

/// Whether the Responses item `line` (its bytes, leading whitespace trimmed) is sure
/// to be a tool's output: its first key `type`, its value one of
/// [`super::responses::OUTPUTS`], written without escapes. Reading such an item ends an
/// open model turn first thing, so the turn can be given before the line is read.
/// `false` when unsure (the line is then read first, as any other). (Only the first
/// key is looked at: a whole scan for `type` and `role`, to know a user's message
/// too, cost more than it saved. On the bytes: the line is validated as UTF-8 when it
/// is read.)
pub(super) fn ends_turn(line: &[u8]) -> bool {
    let kind = (|| {
        let rest = super::first_key::key_start(line)?;
        let rest = rest.strip_prefix(b"type\"")?.trim_ascii_start();
        let rest = rest.strip_prefix(b":")?.trim_ascii_start();
        let rest = rest.strip_prefix(b"\"")?;
        // Up to the closing quote; a backslash first (an escape) is unsure.
        let end = crate::json_string::plain(rest)?;
        (rest[end] == b'"').then(|| &rest[..end])
    })();
    kind.is_some_and(|kind| {
        super::responses::OUTPUTS
            .iter()
            .any(|output| output.as_bytes() == kind)
    })
}

/// The messages of an AutoGen message or event (`model_dump()`) into `chat` (a
/// default one), if the scanner is sure of it: its type, source, content, usage and
/// a handoff's target (any other key skipped, as serde does), the content read
/// before the type is known (it comes after it); a tool call request, a tool
/// execution or a chat message whose content is what its type says, built by the
/// conversion's `autogen::request`, `autogen::result` and `autogen::step`, and an
/// event that is no step (no message). `None` otherwise (a multimodal or structured
/// message among them), and the serde path reads the line. (The messages are built
/// here, not a struct filled for the conversion to read: with its drops and the
/// record reader's path, that cost about 120 instructions a message.)
pub(super) fn agent_message<'a>(text: &'a str, chat: &mut Chat<'a>) -> Option<()> {
    whole(text, |s| {
        let mut seen = Seen::default();
        let (mut kind, mut source, mut content, mut usage, mut target) =
            (None, None, None, None, None);
        s.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    kind = Some(s.string()?);
                },
                b"source" => {
                    seen.once(1)?;
                    source = Some(s.string()?);
                },
                b"content" => {
                    seen.once(2)?;
                    s.peek()?;
                    let start = s.at;
                    content = s.agent_content();
                    if content.is_none() {
                        // Not what it looked like: checked, for an event that is no
                        // step (any other type gives up below).
                        s.at = start;
                        s.skip(2)?;
                    }
                },
                b"models_usage" => {
                    seen.once(3)?;
                    usage = s.nullable(|s| s.provider_usage(2))?;
                },
                b"target" => {
                    seen.once(4)?;
                    target = s.nullable(|s| s.string())?;
                },
                _ | b"id" | b"metadata" | b"created_at" => s.skip(2)?,
            });
            Some(())
        })?;
        // `type` and `source` are required, as serde reads them.
        let (kind, source) = (kind?, source?);
        let usage = usage.map(ProviderUsage::into_usage);
        let kind = &*kind;
        match content {
            Some(Scanned::Calls(calls)) if kind == autogen::REQUEST => {
                chat.message = Some(autogen::request(calls, source, usage));
            }
            Some(Scanned::Results(mut results)) if kind == autogen::EXECUTION => {
                // One result (the commonest) as the message, where a list of results
                // would be allocated for it.
                if results.len() == 1 {
                    // (Popped: an iterator over the list copies it whole first.)
                    let one = results.pop()?;
                    chat.message = Some(autogen::result(one, source));
                } else {
                    for one in results {
                        chat.results.push(autogen::result(one, source.clone()));
                    }
                }
            }
            // An empty list, read as calls (it has no first key): no results.
            Some(Scanned::Calls(calls)) if kind == autogen::EXECUTION && calls.is_empty() => {}
            Some(Scanned::Text(text)) if autogen::is_text_step(kind) => {
                chat.message = Some(autogen::step(kind, text, source, usage, target));
            }
            _ if autogen::is_silent_event(kind) => {}
            _ => return None,
        }
        Some(())
    })
}

/// A `ToolCallRequestEvent`'s content (the JSON text of its list of calls) if the
/// scanner is sure of it: its tool calls.
pub(super) fn function_calls(content: &str) -> Option<Vec<ToolCall<'_>>> {
    whole(content, |s| s.function_calls(1))
}

/// A `ToolCallExecutionEvent`'s content (the JSON text of its list of results) if
/// the scanner is sure of it: the structs serde fills.
pub(super) fn execution_results(content: &str) -> Option<autogen::Results<'_>> {
    whole(content, |s| s.execution_results(1))
}

/// The text of `text` if it is one JSON string the scanner is sure of.
pub(super) fn json_string(text: &str) -> Option<Cow<'_, str>> {
    whole(text, |s| s.string())
}

/// What `read` reads from `text`, if the fast path is on, `read` is sure of it and
/// nothing but whitespace follows.
#[inline(always)]
fn whole<'a, T>(text: &'a str, read: impl FnOnce(&mut Scan<'a>) -> Option<T>) -> Option<T> {
    if off() {
        return None;
    }
    let mut s = Scan::new(text);
    // The value is returned where it was built (it can be a large struct): not
    // unwrapped and wrapped again.
    let value = read(&mut s);
    s.end()?;
    value
}

/// Whether the fast path is off: never, but in tests that compare it with the serde
/// path.
#[inline(always)]
fn off() -> bool {
    #[cfg(test)]
    return tests::OFF.with(std::cell::Cell::get);
    #[cfg(not(test))]
    false
}

impl<'a> Scan<'a> {
    /// An AutoGen message's content (at nesting 2) read before its type is known: a
    /// string, or a list read as the tool calls or the tool results its first key
    /// suggests (results begin with `content`, `call_id` or `is_error`). `None`
    /// (the cursor moved) for anything else.
    fn agent_content(&mut self) -> Option<Scanned<'a>> {
        match self.peek()? {
            b'"' => self.string().map(Scanned::Text),
            b'[' => {
                let mut ahead = Scan {
                    text: self.text,
                    at: self.at + 1,
                };
                // The first key compared in place, not scanned for its end where it
                // is none of these (a call's `id`, most often).
                let results = ahead.peek()? == b'{' && {
                    ahead.at += 1;
                    ahead.key_first()?;
                    ahead.key_is(b"content")
                        || ahead.key_is(b"call_id")
                        || ahead.key_is(b"is_error")
                };
                if results {
                    self.execution_results(2).map(Scanned::Results)
                } else {
                    self.function_calls(2).map(Scanned::Calls)
                }
            }
            _ => None,
        }
    }

    /// A list of AutoGen's `FunctionCall`s, its brackets at nesting `depth`, as the
    /// tool calls [`autogen::tool_call`] makes of them (built here: a list of
    /// `FunctionCall`s converted measured dearer). A call with an empty name gives up
    /// (the serde path says why).
    fn function_calls(&mut self, depth: usize) -> Option<Vec<ToolCall<'a>>> {
        self.array(depth, |s| {
            let mut seen = Seen::default();
            let (mut id, mut name, mut arguments) = (None, None, None);
            s.object(|s| {
                match_key!(s, {
                    b"id" => {
                        seen.once(0)?;
                        id = s.str()?;
                    },
                    b"name" => {
                        seen.once(1)?;
                        name = Some(s.string()?);
                    },
                    b"arguments" => {
                        seen.once(2)?;
                        arguments = s.raw_arguments(depth + 2)?;
                    },
                    _ => s.skip(depth + 2)?,
                });
                Some(())
            })?;
            autogen::tool_call(FunctionCall {
                id,
                name: Str(name?),
                arguments,
            })
            .ok()
        })
    }

    /// A list of AutoGen's `FunctionExecutionResult`s, its brackets at nesting
    /// `depth`.
    fn execution_results(&mut self, depth: usize) -> Option<autogen::Results<'a>> {
        let mut results = autogen::Results::new();
        self.elements(depth, |s| {
            let mut seen = Seen::default();
            let (mut text, mut name, mut call_id, mut is_error) = (None, None, None, false);
            s.object(|s| {
                match_key!(s, {
                    b"content" => {
                        seen.once(0)?;
                        text = Some(s.string()?);
                    },
                    b"name" => {
                        seen.once(1)?;
                        name = s.str()?;
                    },
                    b"call_id" => {
                        seen.once(2)?;
                        call_id = s.str()?;
                    },
                    b"is_error" => {
                        seen.once(3)?;
                        is_error = s.boolean()?;
                    },
                    _ => s.skip(depth + 2)?,
                });
                Some(())
            })?;
            results.push(ExecutionResult {
                content: Str(text?),
                name,
                call_id,
                is_error,
            });
            Some(())
        })?;
        Some(results)
    }

    /// A chat message of the common keys (`role`, `content` as a string or parts,
    /// `refusal`, `responder`, `name`, `tool_calls`, `tool_call_id`, `usage`, and the
    /// ignored `metadata`, `annotations`, `audio` and the rest of [`IGNORED_KEYS`]),
    /// its braces at nesting `depth`; converted as the serde path converts it, into
    /// `chat`.
    fn chat(&mut self, depth: usize, langroid_roles: bool, chat: &mut Chat<'a>) -> Option<()> {
        let mut seen = Seen::default();
        let mut role = None;
        let mut content = None;
        let (mut responder, mut name, mut tool_call_id, mut refusal) = (None, None, None, None);
        let mut tool_calls = Vec::new();
        let mut usage = None;
        // The calls and results content parts hold, added as the parts are read.
        let mut found = Found::default();
        let inner = depth + 1;
        self.object(|s| {
            match_key!(s, {
                b"role" => {
                    seen.once(0)?;
                    role = Some(s.string()?);
                },
                b"content" => {
                    seen.once(1)?;
                    // A string, most often: read here, before `nullable`'s test for
                    // `null` (measured: 19 fewer instructions a `jsonl` message).
                    content = if s.peek()? == b'"' {
                        Some(s.string()?)
                    } else {
                        s.nullable(|s| s.content(inner, &mut found))?
                    };
                },
                b"responder" => {
                    seen.once(2)?;
                    responder = s.nullable(|s| s.string())?;
                },
                b"name" => {
                    seen.once(3)?;
                    name = s.nullable(|s| s.string())?;
                },
                b"tool_calls" => {
                    seen.once(4)?;
                    tool_calls = s.nullable(|s| s.calls(inner))?.unwrap_or_default();
                },
                b"tool_call_id" => {
                    seen.once(5)?;
                    tool_call_id = s.nullable(|s| s.string())?;
                },
                b"usage" => {
                    seen.once(6)?;
                    usage = s.nullable(|s| s.usage(inner))?;
                },
                b"refusal" => {
                    seen.once(7)?;
                    refusal = s.nullable(|s| s.string())?;
                },
                b"metadata" => {
                    seen.once(8)?;
                    s.skip(inner)?;
                },
                b"annotations" => {
                    seen.once(9)?;
                    s.skip(inner)?;
                },
                b"audio" => {
                    seen.once(10)?;
                    s.skip(inner)?;
                },
                // The other keys read and ignored (the reasoning OpenAI-compatible
                // providers add beside the answer, CrewAI's files, ...), by the
                // serde path's own list, so that the two cannot differ on one;
                // rarer, so compared after the scan an unknown key costs. (The
                // list's first three are the arms above, their bits 8 + their place,
                // as here.)
                name @ _ => {
                    let i = IGNORED_KEYS.iter().position(|k| k.as_bytes() == name)?;
                    seen.once(8 + u32::try_from(i).ok()?)?;
                    s.skip(inner)?;
                },
            });
            Some(())
        })?;
        let role_text = role?;
        if langroid_roles && is_langroid_role(&role_text) {
            return None;
        }
        let role: Role = role_text.parse().ok()?;
        let content = parts::with_refusal(content.unwrap_or_default(), refusal);
        let tool_calls = parts::appended(tool_calls, found.calls);
        let responder = responder.or(name);
        let mut results = found.results;
        if let Some(responder) = &responder {
            for result in &mut results {
                result.responder = Some(responder.clone());
            }
        }
        // A user turn that only carries tool results (Anthropic's) is those results.
        let only_results = !results.is_empty() && content.is_empty() && tool_calls.is_empty();
        if !only_results || usage.is_some() {
            chat.message = Some(Message {
                role,
                no_response: false,
                responder,
                content,
                tool_calls,
                usage,
                tool_call_id,
                rare: None,
            });
        }
        chat.results = results;
        Some(())
    }

    /// A completion's `choices`: exactly one, whose `message` is read into `chat`
    /// (`index`, `finish_reason`, `logprobs` and any other key skipped).
    fn one_choice(&mut self, langroid_roles: bool, chat: &mut Chat<'a>) -> Option<()> {
        self.expect(b'[')?;
        let mut seen = Seen::default();
        self.object(|s| {
            match_key!(s, {
                b"message" => {
                    seen.once(0)?;
                    s.chat(4, langroid_roles, chat)?;
                },
                _ | b"index" | b"finish_reason" | b"logprobs" => s.skip(4)?,
            });
            Some(())
        })?;
        if !seen.has(0) {
            return None;
        }
        // A second choice (or a trailing comma) is the serde path's to refuse.
        self.expect(b']')
    }
}

#[cfg(test)]
mod tests;
