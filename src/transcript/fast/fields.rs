//! The values of the records' fields the scanner reads: token usage, tool calls and
//! their arguments, content as text or parts.

use std::borrow::Cow;

use serde::de::IgnoredAny;

use super::scan::{DEPTH, Scan, Seen};
use crate::message::CallArguments;
use crate::transcript::parts::{self, Content, Found, Part};
use crate::transcript::wire::{ProviderUsage, RawArguments, Str};
use crate::{ToolCall, Usage};

impl<'a> Scan<'a> {
    /// `usage`: input and output tokens (OpenAI's names as aliases), `total_tokens`
    /// ignored; no other key. Its braces at nesting `depth`.
    pub(super) fn usage(&mut self, depth: usize) -> Option<Usage> {
        let mut seen = Seen::default();
        let mut usage = Usage::default();
        self.object(|s| {
            match_key!(s, {
                b"input_tokens" | b"prompt_tokens" => {
                    seen.once(0)?;
                    usage.input_tokens = s.count()?;
                },
                b"output_tokens" | b"completion_tokens" => {
                    seen.once(1)?;
                    usage.output_tokens = s.count()?;
                },
                b"total_tokens" => {
                    seen.once(2)?;
                    s.skip(depth + 1)?;
                },
                _ => return None,
            });
            Some(())
        })?;
        Some(usage)
    }

    /// Token counts (`input_tokens`, `output_tokens`: Agno's metrics, LangChain's
    /// `usage_metadata`), any other key skipped (as serde does); its braces at
    /// nesting `depth`.
    pub(super) fn token_counts(&mut self, depth: usize) -> Option<Usage> {
        let mut seen = Seen::default();
        let mut usage = Usage::default();
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
                _ | b"total_tokens" | b"duration" | b"time_to_first_token"
                | b"input_token_details" | b"output_token_details" => {
                    s.skip(depth + 1)?;
                },
            });
            Some(())
        })?;
        Some(usage)
    }

    /// A provider's usage (OpenAI's names as aliases, Anthropic's cache counts); any
    /// other key skipped, as serde does. Its braces at nesting `depth`.
    pub(super) fn provider_usage(&mut self, depth: usize) -> Option<ProviderUsage> {
        let mut seen = Seen::default();
        let mut usage = ProviderUsage::default();
        self.object(|s| {
            match_key!(s, {
                b"input_tokens" | b"prompt_tokens" => {
                    seen.once(0)?;
                    usage.input_tokens = s.nullable(|s| s.count())?;
                },
                b"output_tokens" | b"completion_tokens" => {
                    seen.once(1)?;
                    usage.output_tokens = s.nullable(|s| s.count())?;
                },
                b"cache_creation_input_tokens" => {
                    seen.once(2)?;
                    usage.cache_creation_input_tokens = s.nullable(|s| s.count())?;
                },
                b"cache_read_input_tokens" => {
                    seen.once(3)?;
                    usage.cache_read_input_tokens = s.nullable(|s| s.count())?;
                },
                _ | b"total_tokens" | b"prompt_tokens_details"
                | b"completion_tokens_details" | b"service_tier" | b"server_tool_use"
                | b"cache_creation" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(usage)
    }

    /// `tool_calls`: a list of calls, whose brackets are at nesting `depth`.
    pub(super) fn calls(&mut self, depth: usize) -> Option<Vec<ToolCall<'a>>> {
        self.array(depth, |s| s.call(depth + 1))
    }

    /// One tool call, in doneseq's shape (`name`, `arguments`) or OpenAI's
    /// (`function: {name, arguments}`), with its `id` and an ignored `type`, `index`
    /// and `extra_content`; its braces at nesting `depth`.
    fn call(&mut self, depth: usize) -> Option<ToolCall<'a>> {
        let mut seen = Seen::default();
        let (mut id, mut name, mut arguments, mut function) = (None, None, None, None);
        self.object(|s| {
            match_key!(s, {
                b"id" => {
                    seen.once(0)?;
                    id = s.nullable(|s| s.string())?;
                },
                b"type" => {
                    seen.once(1)?;
                    s.skip(depth + 1)?;
                },
                b"name" => {
                    seen.once(2)?;
                    name = s.nullable(|s| s.string())?;
                },
                b"arguments" => {
                    seen.once(3)?;
                    arguments = s.nullable(|s| s.arguments(depth + 1))?;
                },
                b"function" => {
                    seen.once(4)?;
                    function = s.nullable(|s| s.function(depth + 1))?;
                },
                b"index" => {
                    seen.once(5)?;
                    s.skip(depth + 1)?;
                },
                b"extra_content" => {
                    seen.once(6)?;
                    s.skip(depth + 1)?;
                },
                _ => return None,
            });
            Some(())
        })?;
        let (name, arguments) = match (name, function) {
            (Some(name), None) => (name, arguments),
            (None, Some((name, inner))) if arguments.is_none() => (name, inner),
            _ => return None,
        };
        if name.is_empty() {
            return None;
        }
        Some(ToolCall::from_parts(
            name,
            arguments.unwrap_or_default(),
            id,
        ))
    }

    /// OpenAI's `function`: its `name` (required) and `arguments` (and Ollama's
    /// ignored `index`); its braces at nesting `depth`.
    #[allow(clippy::type_complexity)]
    fn function(&mut self, depth: usize) -> Option<(Cow<'a, str>, Option<CallArguments<'a>>)> {
        let mut seen = Seen::default();
        let (mut name, mut arguments) = (None, None);
        self.object(|s| {
            match_key!(s, {
                b"name" => {
                    seen.once(0)?;
                    name = Some(s.string()?);
                },
                b"arguments" => {
                    seen.once(1)?;
                    arguments = s.nullable(|s| s.arguments(depth + 1))?;
                },
                b"index" => {
                    seen.once(2)?;
                    s.skip(depth + 1)?;
                },
                _ => return None,
            });
            Some(())
        })?;
        Some((name?, arguments))
    }

    /// A call's arguments at nesting `depth`: a string of JSON is its text (kept as
    /// written where it has escapes, decoded when asked for), any other value the JSON
    /// text it is written in.
    pub(super) fn arguments(&mut self, depth: usize) -> Option<CallArguments<'a>> {
        if self.peek()? == b'"' {
            return self.json_in_string();
        }
        self.raw(depth).map(CallArguments::Borrowed)
    }

    /// A `content`: a string, or a list of parts whose brackets are at nesting
    /// `depth` (the caller reads `null`), as its text, the calls and results its
    /// parts hold added to `found`.
    pub(super) fn content(&mut self, depth: usize, found: &mut Found<'a>) -> Option<Cow<'a, str>> {
        match self.peek()? {
            b'"' => self.string(),
            b'[' => self.parts(depth, found),
            _ => None,
        }
    }

    /// A list of content parts, its brackets at nesting `depth`, as its text, the
    /// calls and results it holds added to `found`. Each part is converted as it is
    /// read ([`parts::fold`]): no list of parts is built. A part the conversion
    /// refuses gives up (the serde path then says why). (The loop of
    /// [`Scan::array`], written out: one loop shared by both measured dearer.)
    fn parts(&mut self, depth: usize, found: &mut Found<'a>) -> Option<Cow<'a, str>> {
        if depth > DEPTH {
            return None;
        }
        self.expect(b'[')?;
        if self.peek()? == b']' {
            self.at += 1;
            return Some(Cow::Borrowed(""));
        }
        let mut text = None;
        // One part filled in place for all (a part moved is a 200-byte copy).
        let mut part = Part::default();
        for i in 0.. {
            self.part(depth + 1, &mut part)?;
            parts::fold(i, &mut part, &mut text, found).ok()?;
            if self.close(b']')? {
                break;
            }
        }
        Some(text.unwrap_or_default())
    }

    /// A `content` that holds no tool uses or results (a tool result's, a Responses
    /// item's), as its text; `None` where it holds any (the serde path then says
    /// that it must not).
    fn plain_content(&mut self, depth: usize) -> Option<Cow<'a, str>> {
        if self.peek()? == b'"' {
            // Most often: a string holds no parts.
            return self.string();
        }
        let mut found = Found::default();
        let text = self.content(depth, &mut found)?;
        (found.calls.is_empty() && found.results.is_empty()).then_some(text)
    }

    /// A `content` where text parts are the rule (a Responses item's): a list of
    /// text parts only is read as the text the conversion makes of it, their texts
    /// joined by newlines (one borrowed); any other content is read as
    /// [`Scan::plain_content`] reads it (an item's content holds no tool uses or
    /// results), converted part by part. (Text first is a shorter path where text
    /// parts are the rule; where parts of other types are common, as in Anthropic's
    /// messages, trying text first would cost more.)
    pub(super) fn text_content(&mut self, depth: usize) -> Option<Content<'a, RawArguments<'a>>> {
        if self.peek()? == b'[' {
            let start = self.at;
            if let Some(text) = self.text_parts(depth) {
                return Some(Content::Text(text));
            }
            self.at = start;
        }
        self.plain_content(depth).map(Content::Text)
    }

    /// A list of text parts (`text`, `input_text`, `output_text`), its brackets at
    /// nesting `depth`, as the text they join into; `None` (the cursor moved) at
    /// any other part, or a part with a key [`Scan::part`] reads for another type.
    fn text_parts(&mut self, depth: usize) -> Option<Cow<'a, str>> {
        if depth > DEPTH {
            return None;
        }
        self.expect(b'[')?;
        let mut text: Option<Cow<'a, str>> = None;
        if self.peek()? == b']' {
            self.at += 1;
            return Some(Cow::Borrowed(""));
        }
        loop {
            let piece = self.text_part(depth + 1)?;
            text = Some(parts::join(text, piece));
            if self.close(b']')? {
                return text;
            }
        }
    }

    /// One text part's text, its braces at nesting `depth` (keys [`Scan::part`] does
    /// not read skipped, as it skips them).
    fn text_part(&mut self, depth: usize) -> Option<Cow<'a, str>> {
        if depth > DEPTH {
            return None;
        }
        let mut seen = Seen::default();
        let (mut typed, mut text) = (false, None);
        self.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    // Another type gives up at once (it most often comes first).
                    match s.string()? {
                        Cow::Borrowed(kind) if parts::is_text(kind) => typed = true,
                        _ => return None,
                    }
                },
                b"text" => {
                    seen.once(1)?;
                    text = s.nullable(|s| s.string())?;
                },
                // The other keys `Scan::part` reads: another type's.
                b"refusal" | b"id" | b"name" | b"input" | b"tool_use_id" | b"content"
                | b"is_error" => return None,
                _ | b"annotations" | b"logprobs" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        if typed { text } else { None }
    }

    /// One content part into `part` (what an earlier part left in it cleared): the
    /// fields [`Part`] reads, any other key skipped (as serde does); its braces at
    /// nesting `depth`.
    fn part(&mut self, depth: usize, part: &mut Part<'a, RawArguments<'a>>) -> Option<()> {
        if depth > DEPTH {
            return None;
        }
        let mut seen = Seen::default();
        *part = Part::default();
        let inner = depth + 1;
        self.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    part.kind = s.str()?;
                },
                b"text" => {
                    seen.once(1)?;
                    part.text = s.str()?;
                },
                b"refusal" => {
                    seen.once(2)?;
                    part.refusal = s.str()?;
                },
                b"id" => {
                    seen.once(3)?;
                    part.id = s.str()?;
                },
                b"name" => {
                    seen.once(4)?;
                    part.name = s.str()?;
                },
                b"input" => {
                    seen.once(5)?;
                    part.input = s.raw_arguments(inner)?;
                },
                b"tool_use_id" => {
                    seen.once(6)?;
                    part.tool_use_id = s.str()?;
                },
                b"content" => {
                    seen.once(7)?;
                    part.content = s.nullable(|s| s.plain_content(inner).map(Content::Text))?;
                },
                b"is_error" => {
                    seen.once(8)?;
                    part.is_error = s.nullable(|s| s.boolean())?;
                },
                _ | b"annotations" | b"cache_control" | b"logprobs" | b"citations" => {
                    s.skip(inner)?;
                },
            });
            Some(())
        })
    }

    /// An optional string field: `null` is absent, as serde reads an `Option<Str>`.
    pub(super) fn str(&mut self) -> Option<Option<Str<'a>>> {
        Some(self.nullable(|s| s.string())?.map(Str))
    }

    /// An optional field whose value is not read, at nesting `depth`: whether it is
    /// there and not `null`, as serde reads an `Option<IgnoredAny>`.
    pub(super) fn present(&mut self, depth: usize) -> Option<Option<IgnoredAny>> {
        Some(self.nullable(|s| s.skip(depth))?.map(|()| IgnoredAny))
    }

    /// An optional field of arguments at nesting `depth`, as serde reads an
    /// `Option<RawArguments>`.
    pub(super) fn raw_arguments(&mut self, depth: usize) -> Option<Option<RawArguments<'a>>> {
        Some(self.nullable(|s| s.arguments(depth))?.map(RawArguments))
    }
}
