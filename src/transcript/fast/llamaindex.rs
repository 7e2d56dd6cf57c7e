//! LlamaIndex's chat messages (`ChatMessage.model_dump()`, one a line) scanned
//! straight from their bytes: each block filled into the [`Block`] serde fills and
//! folded as it is read by the same [`fold`], the message finished by the same
//! [`Read::into_message`]. A citable block, a message's legacy `content`, and
//! anything the scanner is not sure of give up, and the serde path reads the line.

use super::Chat;
use super::scan::{DEPTH, Scan, Seen};
use crate::transcript::llamaindex::{Block, Read, fold};
use crate::transcript::wire::Str;

/// The LlamaIndex message in `text` (a trimmed line) into `chat`, if the scanner is
/// sure of it: `role`, `additional_kwargs` and `blocks`, any other key skipped (as
/// serde does).
pub(in crate::transcript) fn message<'a>(text: &'a str, chat: &mut Chat<'a>) -> Option<()> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        let mut role = None;
        let mut read = Read::default();
        let mut blocks = 0;
        s.object(|s| {
            match_key!(s, {
                b"role" => {
                    seen.once(0)?;
                    role = Some(s.string()?);
                },
                b"additional_kwargs" => {
                    seen.once(1)?;
                    s.nullable(|s| s.llama_kwargs(2, &mut read))?;
                },
                b"blocks" => {
                    seen.once(2)?;
                    s.nullable(|s| {
                        s.elements(2, |s| {
                            let block = s.llama_block(3)?;
                            fold(blocks, block, &mut read.text, &mut read.calls).ok()?;
                            blocks += 1;
                            Some(())
                        })
                    })?;
                },
                // A message's text before its blocks': left to serde.
                b"content" => return None,
                _ => s.skip(2)?,
            });
            Some(())
        })?;
        chat.message = Some(read.into_message(&role?).ok()?);
        Some(())
    })
}

impl<'a> Scan<'a> {
    /// `additional_kwargs`, its braces at nesting `depth`: the calls (kept as JSON
    /// text), the call answered and the tool's name into `read`; any other key
    /// skipped.
    fn llama_kwargs(&mut self, depth: usize, read: &mut Read<'a>) -> Option<()> {
        let mut seen = Seen::default();
        self.object(|s| {
            match_key!(s, {
                b"tool_calls" => {
                    seen.once(0)?;
                    read.kwarg_calls = s.nullable(|s| s.raw(depth + 1))?;
                },
                b"tool_call_id" => {
                    seen.once(1)?;
                    read.call_id = s.nullable(|s| s.string())?;
                },
                b"name" => {
                    seen.once(2)?;
                    read.name = s.nullable(|s| s.string())?;
                },
                _ => s.skip(depth + 1)?,
            });
            Some(())
        })
    }

    /// A block, its braces at nesting `depth`, as serde fills it; a citable block (its
    /// content a list of blocks) gives up.
    fn llama_block(&mut self, depth: usize) -> Option<Block<'a>> {
        if depth > DEPTH {
            return None;
        }
        let mut seen = Seen::default();
        let mut block = Block {
            block_type: Str("".into()),
            text: None,
            tool_call_id: None,
            tool_name: None,
            tool_kwargs: None,
            content: None,
        };
        self.object(|s| {
            match_key!(s, {
                b"block_type" => {
                    seen.once(0)?;
                    block.block_type = Str(s.string()?);
                },
                b"text" => {
                    seen.once(1)?;
                    block.text = s.str()?;
                },
                b"tool_call_id" => {
                    seen.once(2)?;
                    block.tool_call_id = s.str()?;
                },
                b"tool_name" => {
                    seen.once(3)?;
                    block.tool_name = s.str()?;
                },
                b"tool_kwargs" => {
                    seen.once(4)?;
                    block.tool_kwargs = s.raw_arguments(depth + 1)?;
                },
                b"content" => {
                    seen.once(5)?;
                    s.skip(depth + 1)?;
                },
                _ => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        if !seen.has(0) || &*block.block_type.0 == "citable" {
            return None;
        }
        Some(block)
    }
}
