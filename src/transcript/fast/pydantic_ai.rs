//! Pydantic AI's messages (a `ModelRequest` or `ModelResponse` a line) scanned
//! straight from their bytes into the [`ModelMessage`] the serde path reads,
//! converted by the same `pydantic_ai::read`. Anything the scanner is not sure of
//! gives up, and the serde path reads the line.

use super::scan::{Scan, Seen};
use crate::transcript::pydantic_ai::{ModelMessage, Part, PartContent, Usage};
use crate::transcript::wire::Str;

/// The Pydantic AI message in `text` (a trimmed line) into `message` (a default
/// one), if the scanner is sure of it: the keys the serde path reads, any other key
/// skipped (as serde does). `None` otherwise, `message` then partly filled. (Filled
/// where it is read: the struct is large, and each move of it a copy. Never inlined:
/// inlined into the record reader's dispatch, as the compiler chose once that
/// dispatch was smaller, it cost 124 instructions a message.)
#[inline(never)]
pub(in crate::transcript) fn message<'a>(
    text: &'a str,
    message: &mut ModelMessage<'a>,
) -> Option<()> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        s.object(|s| {
            match_key!(s, {
                b"parts" => {
                    seen.once(0)?;
                    message.parts = s.array(2, |s| s.pydantic_part(3))?;
                },
                b"kind" => {
                    seen.once(1)?;
                    message.kind = Str(s.string()?);
                },
                b"usage" => {
                    seen.once(2)?;
                    message.usage = s.nullable(|s| s.pydantic_usage(2))?;
                },
                b"instructions" => {
                    seen.once(3)?;
                    message.instructions = s.str()?;
                },
                _ | b"timestamp" | b"run_id" | b"conversation_id" | b"metadata" | b"state"
                | b"model_name" | b"model_id" | b"provider_name" | b"provider_url"
                | b"canonical_system" | b"provider_details" | b"provider_response_id"
                | b"finish_reason" | b"workspace_ref" | b"history_digest"
                | b"failed_attempts" => s.skip(2)?,
            });
            Some(())
        })?;
        // `parts` and `kind` are required, as serde reads them.
        (seen.has(0) && seen.has(1)).then_some(())
    })
}

impl<'a> Scan<'a> {
    /// A part of a request or a response, its braces at nesting `depth`: the fields
    /// serde's `Part` reads, any other key skipped (as serde does).
    fn pydantic_part(&mut self, depth: usize) -> Option<Part<'a>> {
        let mut seen = Seen::default();
        let mut part = Part::default();
        self.object(|s| {
            match_key!(s, {
                b"content" => {
                    seen.once(0)?;
                    part.content = s.nullable(|s| {
                        if s.peek()? == b'"' {
                            return s.string().map(PartContent::Text);
                        }
                        s.raw(depth + 1).map(PartContent::Json)
                    })?;
                },
                b"part_kind" => {
                    seen.once(1)?;
                    part.part_kind = Str(s.string()?);
                },
                b"tool_name" => {
                    seen.once(2)?;
                    part.tool_name = s.str()?;
                },
                b"args" => {
                    seen.once(3)?;
                    part.args = s.raw_arguments(depth + 1)?;
                },
                b"tool_call_id" => {
                    seen.once(4)?;
                    part.tool_call_id = s.str()?;
                },
                b"outcome" => {
                    seen.once(5)?;
                    part.outcome = s.str()?;
                },
                b"transcript" => {
                    seen.once(6)?;
                    part.transcript = s.str()?;
                },
                _ | b"timestamp" | b"id" | b"provider_name" | b"provider_details"
                | b"citations" | b"tool_kind" | b"metadata" | b"retry" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        // `part_kind` is required, as serde reads it.
        seen.has(1).then_some(part)
    }

    /// A response's usage: `input_tokens` and `output_tokens` (their older names as
    /// aliases), any other key skipped (as serde does); its braces at nesting `depth`.
    fn pydantic_usage(&mut self, depth: usize) -> Option<Usage> {
        let mut seen = Seen::default();
        let mut usage = Usage::default();
        self.object(|s| {
            match_key!(s, {
                b"input_tokens" | b"request_tokens" => {
                    seen.once(0)?;
                    usage.input_tokens = s.nullable(|s| s.count())?;
                },
                b"output_tokens" | b"response_tokens" => {
                    seen.once(1)?;
                    usage.output_tokens = s.nullable(|s| s.count())?;
                },
                _ | b"cache_write_tokens" | b"cache_write_1h_tokens" | b"cache_read_tokens"
                | b"output_reasoning_tokens" | b"input_audio_tokens"
                | b"cache_audio_read_tokens" | b"output_audio_tokens" | b"audio_seconds"
                | b"details" | b"cost" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(usage)
    }
}
