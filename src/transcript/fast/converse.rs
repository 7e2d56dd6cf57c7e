//! Bedrock Converse messages (Strands Agents' `agent.messages`, one a line) scanned
//! straight from their bytes: each block folded into the message's messages as it is
//! read ([`Turn`]), as the serde path folds the blocks it read into a list. Blocks of
//! the rarer kinds (cited and guarded text) and anything the scanner is not sure of
//! give up, and the serde path reads the line.

use std::borrow::Cow;

use super::Chat;
use super::scan::{DEPTH, Scan, Seen};
use crate::transcript::bedrock::{ToolUse, Turn, Usage, result_block};
use crate::transcript::record::Out;
use crate::transcript::wire::Str;

/// The Converse message in `text` (a trimmed line) into `chat`, if the scanner is
/// sure of it: `role` before `content`, Strands' `metadata` (its `usage`), any other
/// key skipped (as serde does).
pub(in crate::transcript) fn message<'a>(text: &'a str, chat: &mut Chat<'a>) -> Option<()> {
    super::whole(text, |s| {
        let mut out = Out::new();
        let mut seen = Seen::default();
        let mut turn = None;
        let mut usage = None;
        s.object(|s| {
            match_key!(s, {
                b"role" => {
                    seen.once(0)?;
                    turn = Some(Turn::new(&s.string()?, &out).ok()?);
                },
                b"content" => {
                    seen.once(1)?;
                    let turn = turn.as_mut()?;
                    s.elements(2, |s| s.block(3, turn, &mut out))?;
                },
                b"metadata" => {
                    seen.once(2)?;
                    usage = s.nullable(|s| s.metadata(2))?.flatten();
                },
                _ | b"tracking_id" => s.skip(2)?,
            });
            Some(())
        })?;
        if !seen.has(1) {
            return None;
        }
        turn?.finish(usage, None, &mut out);
        // One message most often: no list for it.
        if out.len() == 1 {
            chat.message = out.pop();
        } else {
            chat.results = out.into_vec();
        }
        Some(())
    })
}

impl<'a> Scan<'a> {
    /// A content block, its braces at nesting `depth`: one key, its kind, read into
    /// `turn`.
    fn block(&mut self, depth: usize, turn: &mut Turn<'a>, out: &mut Out<'a>) -> Option<()> {
        if depth > DEPTH {
            return None;
        }
        let s = self;
        s.expect(b'{')?;
        let inner = depth + 1;
        match_key!(s, {
            b"text" => turn.text(s.string()?),
            b"toolUse" => turn.call(s.tool_use(inner)?).ok()?,
            b"toolResult" => {
                let (id, status, text) = s.tool_result(inner)?;
                turn.result(id, status, text, out).ok()?;
            },
            // Kinds with nothing to read (`null` is no kind: serde's error).
            b"reasoningContent" | b"image" | b"document" | b"video" | b"audio"
            | b"searchResult" | b"cachePoint" => {
                if s.peek()? == b'n' {
                    return None;
                }
                s.skip(inner)?;
            },
            _ => return None,
        });
        // A second key is a second kind: the serde path says so.
        s.expect(b'}')
    }

    /// A `toolUse`: its name, input and id (`type` and any other key skipped, as
    /// serde does); its braces at nesting `depth`.
    fn tool_use(&mut self, depth: usize) -> Option<ToolUse<'a>> {
        let mut seen = Seen::default();
        let mut call = ToolUse::default();
        self.object(|s| {
            match_key!(s, {
                b"toolUseId" => {
                    seen.once(0)?;
                    call.tool_use_id = s.str()?;
                },
                b"name" => {
                    seen.once(1)?;
                    call.name = s.str()?;
                },
                b"input" => {
                    seen.once(2)?;
                    call.input = s.raw_arguments(depth + 1)?;
                },
                _ => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(call)
    }

    /// A `toolResult`: its id, status and text (its blocks' texts joined); its braces
    /// at nesting `depth`.
    #[allow(clippy::type_complexity)]
    fn tool_result(
        &mut self,
        depth: usize,
    ) -> Option<(Option<Str<'a>>, Option<Str<'a>>, Option<Cow<'a, str>>)> {
        let mut seen = Seen::default();
        let (mut id, mut status, mut text) = (None, None, None);
        self.object(|s| {
            match_key!(s, {
                b"toolUseId" => {
                    seen.once(0)?;
                    id = s.str()?;
                },
                b"status" => {
                    seen.once(1)?;
                    status = s.str()?;
                },
                b"content" => {
                    seen.once(2)?;
                    if s.peek()? == b'n' {
                        s.skip(depth + 1)?;
                    } else {
                        s.elements(depth + 1, |s| s.result_block(depth + 2, &mut text))?;
                    }
                },
                _ => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some((id, status, text))
    }

    /// A block of a tool's result, its braces at nesting `depth`, added to `text`:
    /// its text, then its JSON; media skipped; any other key gives up (serde refuses
    /// it).
    fn result_block(&mut self, depth: usize, text: &mut Option<Cow<'a, str>>) -> Option<()> {
        if depth > DEPTH {
            return None;
        }
        let mut seen = Seen::default();
        let (mut piece, mut json) = (None, None);
        self.object(|s| {
            match_key!(s, {
                b"text" => {
                    seen.once(0)?;
                    piece = s.str()?;
                },
                b"json" => {
                    seen.once(1)?;
                    json = s.nullable(|s| s.raw(depth + 1))?;
                },
                b"image" => {
                    seen.once(2)?;
                    s.skip(depth + 1)?;
                },
                b"document" => {
                    seen.once(3)?;
                    s.skip(depth + 1)?;
                },
                b"video" => {
                    seen.once(4)?;
                    s.skip(depth + 1)?;
                },
                b"searchResult" => {
                    seen.once(5)?;
                    s.skip(depth + 1)?;
                },
                _ => return None,
            });
            Some(())
        })?;
        result_block(text, piece, json);
        Some(())
    }

    /// Strands' `metadata`: its `usage` (`metrics` and any other key skipped, as serde
    /// does); its braces at nesting `depth`.
    fn metadata(&mut self, depth: usize) -> Option<Option<Usage>> {
        let mut seen = Seen::default();
        let mut usage = None;
        self.object(|s| {
            match_key!(s, {
                b"usage" => {
                    seen.once(0)?;
                    usage = s.nullable(|s| s.converse_usage(depth + 1))?;
                },
                _ | b"metrics" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(usage)
    }

    /// A Converse `usage` (`totalTokens` and any other key skipped, as serde does);
    /// its braces at nesting `depth`.
    fn converse_usage(&mut self, depth: usize) -> Option<Usage> {
        let mut seen = Seen::default();
        let mut usage = Usage::default();
        self.object(|s| {
            match_key!(s, {
                b"inputTokens" => {
                    seen.once(0)?;
                    usage.input_tokens = s.nullable(|s| s.count())?;
                },
                b"outputTokens" => {
                    seen.once(1)?;
                    usage.output_tokens = s.nullable(|s| s.count())?;
                },
                b"cacheReadInputTokens" => {
                    seen.once(2)?;
                    usage.cache_read_input_tokens = s.nullable(|s| s.count())?;
                },
                b"cacheWriteInputTokens" => {
                    seen.once(3)?;
                    usage.cache_write_input_tokens = s.nullable(|s| s.count())?;
                },
                _ | b"totalTokens" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(usage)
    }
}
