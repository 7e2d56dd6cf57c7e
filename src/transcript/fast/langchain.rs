//! LangChain's messages, bare (`model_dump()`) or in `messages_to_dict()`'s envelope
//! (`{"type", "data": {...}}`), one a line, scanned straight from their bytes into
//! the [`Record`] the serde path reads, converted by the same
//! [`langchain::message`]; a content given as a list of blocks is folded block by
//! block by the serde path's own [`Fold`]. `dumpd()`'s envelope (`kwargs`), and
//! anything else the scanner is not sure of give up, and the serde path reads the
//! line.

use std::borrow::Cow;

use super::Chat;
use super::scan::{Scan, Seen};
use crate::ToolCall;
use crate::transcript::langchain::{self, Block, Call, Fold, Record};
use crate::transcript::wire::{Str, StringOrList, TokenCounts};

/// The bit of `seen` for `data`, beside the message's own keys' (0 to 8).
const DATA: u32 = 9;
/// The bit of `seen` for the envelope's `type`.
const OUTER_TYPE: u32 = 10;

/// The LangChain message in `text` (a trimmed line) into `chat`, if the scanner is
/// sure of it: the keys the serde path reads, any other key skipped (as serde does).
pub(in crate::transcript) fn message<'a>(text: &'a str, chat: &mut Chat<'a>) -> Option<()> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        let mut record = Record::default();
        let mut outer = None;
        s.object(|s| member(s, 1, &mut record, &mut seen, Some(&mut outer)))?;
        // The envelope's type is its message's where the message has none (or an
        // empty one), as the serde path reads it.
        if let Some(kind) = outer
            && (!seen.has(DATA) || record.kind.is_empty())
        {
            record.kind = kind;
        }
        // A key of the message's beside `data` is read by serde and not used: the
        // serde path's to read. A constructor is `dumpd()`'s envelope.
        if seen.has(DATA) && seen.any_below(DATA) || record.kind.0 == "constructor" {
            return None;
        }
        // (`remove` stands for no message: the serde path's, as the reader takes a
        // chat of none for a line the scanner did not read.)
        chat.message = Some(langchain::message(&mut record).ok()??);
        Some(())
    })
}

/// One member of a message's object (its braces at nesting `depth`) into `record`:
/// at the line's top level (`outer` given) its `type` is the envelope's and `data`
/// the message inside it; inside `data`, `type` is the message's.
fn member<'a>(
    s: &mut Scan<'a>,
    depth: usize,
    record: &mut Record<'a>,
    seen: &mut Seen,
    outer: Option<&mut Option<Str<'a>>>,
) -> Option<()> {
    match_key!(s, {
        b"type" => match outer {
            Some(outer) => {
                seen.once(OUTER_TYPE)?;
                *outer = Some(Str(s.string()?));
            }
            None => {
                seen.once(0)?;
                record.kind = Str(s.string()?);
            }
        },
        b"content" => {
            seen.once(1)?;
            if s.peek()? == b'[' {
                record.folded = Some(s.langchain_blocks(depth + 1)?);
            } else {
                record.content = s.nullable(|s| s.string())?.map(StringOrList::Text);
            }
        },
        b"data" => {
            // Only the line's own object is an envelope.
            outer?;
            seen.once(DATA)?;
            let mut inner = Seen::default();
            s.object(|s| member(s, depth + 1, record, &mut inner, None))?;
        },
        b"tool_calls" => {
            seen.once(2)?;
            record.tool_calls = s.nullable(|s| s.array(depth + 1, |s| s.langchain_call(depth + 2)))?;
        },
        b"invalid_tool_calls" => {
            seen.once(3)?;
            record.invalid_tool_calls =
                s.nullable(|s| s.array(depth + 1, |s| s.langchain_call(depth + 2)))?;
        },
        b"usage_metadata" => {
            seen.once(4)?;
            record.usage_metadata = s.nullable(|s| s.token_counts(depth + 1))?.map(TokenCounts::from);
        },
        b"name" => {
            seen.once(5)?;
            record.name = s.str()?;
        },
        b"tool_call_id" => {
            seen.once(6)?;
            record.tool_call_id = s.str()?;
        },
        b"status" => {
            seen.once(7)?;
            record.status = s.str()?;
        },
        b"role" => {
            seen.once(8)?;
            record.role = s.str()?;
        },
        // `dumpd()`'s envelope: the serde path's.
        b"kwargs" => return None,
        _ | b"id" | b"additional_kwargs" | b"response_metadata" | b"artifact" | b"example" => {
            s.skip(depth + 1)?;
        },
    });
    Some(())
}

impl<'a> Scan<'a> {
    /// A content given as a list (its brackets at nesting `depth`) of strings and
    /// blocks, each folded as it is read by the serde path's own [`Fold`]: the text
    /// and the calls. A block the fold refuses gives up (the serde path says why).
    fn langchain_blocks(&mut self, depth: usize) -> Option<(Cow<'a, str>, Vec<ToolCall<'a>>)> {
        let mut fold = Fold::default();
        let mut at = 0;
        self.elements(depth, |s| {
            at += 1;
            if s.peek()? == b'"' {
                fold.text(s.string()?);
                return Some(());
            }
            let block = s.langchain_block(depth + 1)?;
            fold.block(at, block).ok()
        })?;
        Some(fold.finish())
    }

    /// A content block (`type`, `text`, a call's `name`, `args` or `input` and `id`;
    /// any other key skipped, as serde does), its braces at nesting `depth`.
    fn langchain_block(&mut self, depth: usize) -> Option<Block<'a>> {
        let mut seen = Seen::default();
        let mut block = Block::default();
        self.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    block.kind = s.str()?;
                },
                b"text" => {
                    seen.once(1)?;
                    block.text = s.str()?;
                },
                b"name" => {
                    seen.once(2)?;
                    block.name = s.str()?;
                },
                b"args" => {
                    seen.once(3)?;
                    block.args = s.raw_arguments(depth + 1)?;
                },
                b"input" => {
                    seen.once(4)?;
                    block.input = s.raw_arguments(depth + 1)?;
                },
                b"id" => {
                    seen.once(5)?;
                    block.id = s.str()?;
                },
                _ | b"annotations" | b"citations" | b"cache_control" | b"index" | b"extras" => {
                    s.skip(depth + 1)?;
                },
            });
            Some(())
        })?;
        Some(block)
    }

    /// A LangChain tool call (`name`, `args`, `id`, an ignored `type`; an invalid
    /// one's `error`), any other key skipped (as serde does); its braces at nesting
    /// `depth`.
    fn langchain_call(&mut self, depth: usize) -> Option<Call<'a>> {
        let mut seen = Seen::default();
        let mut call = Call::default();
        self.object(|s| {
            match_key!(s, {
                b"name" => {
                    seen.once(0)?;
                    call.name = s.str()?;
                },
                b"args" => {
                    seen.once(1)?;
                    call.args = s.raw_arguments(depth + 1)?;
                },
                b"id" => {
                    seen.once(2)?;
                    call.id = s.str()?;
                },
                b"error" => {
                    seen.once(3)?;
                    call.error = s.str()?;
                },
                _ | b"type" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        Some(call)
    }
}
