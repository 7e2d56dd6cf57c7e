//! Google ADK's events and Gemini's contents (one a line) scanned straight from
//! their bytes into the [`Event`] and [`Content`] the serde path reads, converted by
//! the same `gemini::read_event` and `gemini::read`. A part of a kind other than
//! text, a function's call or response (code, a server tool's, media, a
//! transcription), a key a part does not know, and anything else the scanner is not
//! sure of give up, and the serde path reads the line.

use super::scan::{Scan, Seen};
use crate::transcript::gemini::{
    Actions, Content, Data, Event, FunctionCall, FunctionResponse, METADATA, Part, Parts, Usage,
};
use crate::transcript::wire::{RawJson, Str};

/// The ADK event in `text` (a trimmed line) into `event` (a default one), if the
/// scanner is sure of it: the keys the serde path reads, any other key skipped (as
/// serde does). `None` otherwise, `event` then partly filled. (Filled where it is
/// read: the struct is large, and each move of it a copy.)
pub(in crate::transcript) fn event<'a>(text: &'a str, event: &mut Event<'a>) -> Option<()> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        s.object(|s| {
            match_key!(s, {
                b"content" => {
                    seen.once(0)?;
                    event.content = s.nullable(|s| s.gemini_content(2))?;
                },
                b"author" => {
                    seen.once(1)?;
                    event.author = Str(s.string()?);
                },
                b"actions" => {
                    seen.once(2)?;
                    event.actions = s.nullable(|s| s.adk_actions(2))?;
                },
                b"usage_metadata" | b"usageMetadata" => {
                    seen.once(3)?;
                    event.usage_metadata = s.nullable(|s| s.gemini_usage(2))?;
                },
                b"error_code" | b"errorCode" => {
                    seen.once(4)?;
                    event.error_code = s.str()?;
                },
                b"error_message" | b"errorMessage" => {
                    seen.once(5)?;
                    event.error_message = s.str()?;
                },
                b"partial" => {
                    seen.once(6)?;
                    event.partial = s.nullable(|s| s.boolean())?;
                },
                _ | b"invocation_id" | b"id" | b"timestamp" | b"node_info"
                | b"long_running_tool_ids" | b"branch" | b"invocationId"
                | b"longRunningToolIds" | b"nodeInfo" => s.skip(2)?,
            });
            Some(())
        })?;
        // `author` is required, as serde reads it.
        seen.has(1).then_some(())
    })
}

/// The Gemini content in `text` (a trimmed line) into `content` (a default one), if
/// the scanner is sure of it.
pub(in crate::transcript) fn content<'a>(text: &'a str, content: &mut Content<'a>) -> Option<()> {
    super::whole(text, |s| {
        *content = s.gemini_content(1)?;
        Some(())
    })
}

impl<'a> Scan<'a> {
    /// A content (`role`, `parts`; any other key skipped, as serde does), its braces
    /// at nesting `depth`.
    fn gemini_content(&mut self, depth: usize) -> Option<Content<'a>> {
        let mut seen = Seen::default();
        let mut content = Content::default();
        self.object(|s| {
            match_key!(s, {
                b"parts" => {
                    seen.once(0)?;
                    let parts = s.nullable(|s| s.array(depth + 1, |s| s.gemini_part(depth + 2)))?;
                    content.parts = Parts(parts);
                },
                b"role" => {
                    seen.once(1)?;
                    content.role = s.str()?;
                },
                _ => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        // `parts` is required, as serde reads it (`null` is none).
        seen.has(0).then_some(content)
    }

    /// A part of the kinds read here (text, a function's call or response), its
    /// thought flag and its metadata (skipped); its braces at nesting `depth`. A key
    /// of any other kind, or one not known (which the serde path keeps for its
    /// error), gives up.
    fn gemini_part(&mut self, depth: usize) -> Option<Part<'a>> {
        let mut seen = Seen::default();
        let mut part = Part::default();
        self.object(|s| {
            match_key!(s, {
                b"text" => {
                    seen.once(0)?;
                    let text = s.nullable(|s| s.string())?;
                    hold(&mut part, text.map(|t| Data::Text(Str(t))))?;
                },
                b"function_call" | b"functionCall" => {
                    seen.once(1)?;
                    let call = s.nullable(|s| s.gemini_call(depth + 1))?;
                    hold(&mut part, call.map(Data::FunctionCall))?;
                },
                b"function_response" | b"functionResponse" => {
                    seen.once(2)?;
                    let response = s.nullable(|s| s.gemini_response(depth + 1))?;
                    hold(&mut part, response.map(Data::FunctionResponse))?;
                },
                b"thought" => {
                    seen.once(3)?;
                    part.thought = s.nullable(|s| s.boolean())? == Some(true);
                },
                // The metadata the serde path skips (`gemini::METADATA`, the one
                // list of it), skipped; any other key (a kind not read here, or one
                // not known, which the serde path names in its error) gives up.
                name @ _ => {
                    if !METADATA.iter().any(|m| m.as_bytes() == name) {
                        return None;
                    }
                    s.skip(depth + 1)?;
                },
            });
            Some(())
        })?;
        Some(part)
    }

    /// A function call (`id`, `name`, `args`; any other key skipped, as serde does),
    /// its braces at nesting `depth`.
    fn gemini_call(&mut self, depth: usize) -> Option<FunctionCall<'a>> {
        let mut seen = Seen::default();
        let mut call = FunctionCall::default();
        self.object(|s| {
            match_key!(s, {
                b"args" => {
                    seen.once(0)?;
                    call.args = s.raw_arguments(depth + 1)?;
                },
                b"name" => {
                    seen.once(1)?;
                    call.name = s.str()?;
                },
                b"id" => {
                    seen.once(2)?;
                    call.id = s.str()?;
                },
                _ => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(call)
    }

    /// A function's response (`id`, `name`, `response` as its JSON text; any other
    /// key skipped, as serde does), its braces at nesting `depth`.
    fn gemini_response(&mut self, depth: usize) -> Option<FunctionResponse<'a>> {
        let mut seen = Seen::default();
        let mut response = FunctionResponse::default();
        self.object(|s| {
            match_key!(s, {
                b"response" => {
                    seen.once(0)?;
                    response.response = s.nullable(|s| s.raw(depth + 1))?.map(RawJson);
                },
                b"name" => {
                    seen.once(1)?;
                    response.name = s.str()?;
                },
                b"id" => {
                    seen.once(2)?;
                    response.id = s.str()?;
                },
                _ => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(response)
    }

    /// An event's actions: a transfer and an escalation (any other key skipped, as
    /// serde does); its braces at nesting `depth`.
    fn adk_actions(&mut self, depth: usize) -> Option<Actions<'a>> {
        let mut seen = Seen::default();
        let mut actions = Actions::default();
        self.object(|s| {
            match_key!(s, {
                b"transfer_to_agent" | b"transferToAgent" => {
                    seen.once(0)?;
                    actions.transfer_to_agent = s.str()?;
                },
                b"escalate" => {
                    seen.once(1)?;
                    actions.escalate = s.nullable(|s| s.boolean())?;
                },
                _ | b"state_delta" | b"artifact_delta" | b"requested_auth_configs"
                | b"requested_tool_confirmations" | b"skip_summarization" => {
                    s.skip(depth + 1)?;
                },
            });
            Some(())
        })?;
        Some(actions)
    }

    /// A call's usage (`usage_metadata`: its four counts read, in either naming; any
    /// other key skipped, as serde does); its braces at nesting `depth`.
    fn gemini_usage(&mut self, depth: usize) -> Option<Usage> {
        let mut seen = Seen::default();
        let mut usage = Usage::default();
        self.object(|s| {
            match_key!(s, {
                b"prompt_token_count" | b"promptTokenCount" => {
                    seen.once(0)?;
                    usage.prompt_token_count = s.nullable(|s| s.count())?;
                },
                b"candidates_token_count" | b"candidatesTokenCount" => {
                    seen.once(1)?;
                    usage.candidates_token_count = s.nullable(|s| s.count())?;
                },
                b"tool_use_prompt_token_count" | b"toolUsePromptTokenCount" => {
                    seen.once(2)?;
                    usage.tool_use_prompt_token_count = s.nullable(|s| s.count())?;
                },
                b"thoughts_token_count" | b"thoughtsTokenCount" => {
                    seen.once(3)?;
                    usage.thoughts_token_count = s.nullable(|s| s.count())?;
                },
                _ | b"total_token_count" | b"totalTokenCount" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(usage)
    }
}

/// `data` (if any) into `part`, which holds no kind yet: a part holds one kind, and
/// a second is the serde path's error.
fn hold<'a>(part: &mut Part<'a>, data: Option<Data<'a>>) -> Option<()> {
    if let Some(data) = data {
        if !matches!(part.data, Data::None) {
            return None;
        }
        part.data = data;
    }
    Some(())
}
