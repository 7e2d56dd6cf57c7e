//! Microsoft Agent Framework's messages (`Message.to_dict()`, one a line, as its
//! `FileHistoryProvider` keeps them) scanned straight from their bytes: each content
//! item filled into the [`Content`] serde fills and folded as it is read by the same
//! [`Fold`], the message finished by the same [`Fold::finish`]. A message whose
//! contents come before its role, a content's `usage_details`, and anything the
//! scanner is not sure of give up, and the serde path reads the line.

use super::Chat;
use super::scan::{DEPTH, Scan, Seen};
use crate::transcript::agent_framework::{Content, Fold};
use crate::transcript::record::Out;
use crate::transcript::wire::{RawJson, Str};

/// The Agent Framework message in `text` (a trimmed line) into `chat`, if the scanner
/// is sure of it: `role`, `contents` and `author_name`, any other key skipped (as
/// serde does).
pub(in crate::transcript) fn message<'a>(text: &'a str, chat: &mut Chat<'a>) -> Option<()> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        let mut out = Out::new();
        let mut fold = None;
        let mut author = None;
        let mut contents = 0;
        s.object(|s| {
            match_key!(s, {
                b"role" => {
                    seen.once(0)?;
                    fold = Some(Fold::new(&s.string()?, &out).ok()?);
                },
                b"contents" => {
                    seen.once(1)?;
                    // (Its role first, as the framework writes it.)
                    let fold = fold.as_mut()?;
                    s.elements(2, |s| {
                        let content = s.framework_content(3)?;
                        // (The count is for an error's text: serde's path says it.)
                        fold.content(contents, 0, content, &mut out).ok()?;
                        contents += 1;
                        Some(())
                    })?;
                },
                b"author_name" => {
                    seen.once(2)?;
                    author = s.nullable(|s| s.string())?;
                },
                _ | b"type" | b"additional_properties" | b"message_id" => s.skip(2)?,
            });
            Some(())
        })?;
        fold?.finish(author, &mut out);
        // The messages in order: the last the message itself, those before it (a
        // tool's results but its last, a text before a result) the results before it.
        chat.message = out.pop();
        chat.results.extend(out);
        Some(())
    })
}

impl<'a> Scan<'a> {
    /// A content item, its braces at nesting `depth`, as serde fills it; one with
    /// `usage_details` gives up.
    fn framework_content(&mut self, depth: usize) -> Option<Content<'a>> {
        if depth > DEPTH {
            return None;
        }
        let mut seen = Seen::default();
        let mut content = Content::default();
        self.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    content.kind = Str(s.string()?);
                },
                b"text" => {
                    seen.once(1)?;
                    content.text = s.str()?;
                },
                b"call_id" => {
                    seen.once(2)?;
                    content.call_id = s.str()?;
                },
                b"name" => {
                    seen.once(3)?;
                    content.name = s.str()?;
                },
                b"tool_name" => {
                    seen.once(4)?;
                    content.tool_name = s.str()?;
                },
                b"arguments" => {
                    seen.once(5)?;
                    content.arguments = s.raw_arguments(depth + 1)?;
                },
                b"result" => {
                    seen.once(6)?;
                    content.result = s.nullable(|s| s.raw(depth + 1))?.map(RawJson);
                },
                b"items" => {
                    seen.once(7)?;
                    content.items = s.nullable(|s| s.raw(depth + 1))?.map(RawJson);
                },
                b"exception" => {
                    seen.once(8)?;
                    content.exception = s.str()?;
                },
                b"message" => {
                    seen.once(9)?;
                    content.message = s.str()?;
                },
                b"error_code" => {
                    seen.once(10)?;
                    content.error_code = s.str()?;
                },
                b"usage_details" => return None,
                _ | b"additional_properties" | b"id" | b"hosted" => s.skip(depth + 1)?,
            });
            Some(())
        })?;
        seen.has(0).then_some(content)
    }
}
