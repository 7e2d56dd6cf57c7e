//! Agno's messages (`Message.to_dict()`, one a line) scanned straight from their
//! bytes into the [`Fields`] the serde path reads, converted by the same
//! [`Fields::into_message`]. A message repeated from an earlier run
//! (`from_history`), content holding tool uses or results, and anything the scanner
//! is not sure of give up, and the serde path reads the line.

use super::Chat;
use super::scan::Seen;
use crate::transcript::agno::Fields;
use crate::transcript::parts::Found;

/// The Agno message in `text` (a trimmed line) into `chat`, if the scanner is sure
/// of it: the keys the serde path reads, any other key skipped (as serde does).
pub(in crate::transcript) fn message<'a>(text: &'a str, chat: &mut Chat<'a>) -> Option<()> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        let mut fields = Fields::default();
        let mut found = Found::default();
        s.object(|s| {
            match_key!(s, {
                b"role" => {
                    seen.once(0)?;
                    fields.role = s.string()?;
                },
                b"content" => {
                    seen.once(1)?;
                    fields.text = s.nullable(|s| s.content(2, &mut found))?.unwrap_or_default();
                },
                b"name" => {
                    seen.once(2)?;
                    fields.name = s.nullable(|s| s.string())?;
                },
                b"tool_calls" => {
                    seen.once(3)?;
                    fields.tool_calls = s.nullable(|s| s.calls(2))?;
                },
                b"tool_call_id" => {
                    seen.once(4)?;
                    fields.tool_call_id = s.nullable(|s| s.string())?;
                },
                b"tool_name" => {
                    seen.once(5)?;
                    fields.tool_name = s.nullable(|s| s.string())?;
                },
                b"tool_call_error" => {
                    seen.once(6)?;
                    fields.tool_call_error = s.nullable(|s| s.boolean())? == Some(true);
                },
                b"stop_after_tool_call" => {
                    seen.once(7)?;
                    fields.stop_after_tool_call = s.nullable(|s| s.boolean())? == Some(true);
                },
                b"from_history" => {
                    seen.once(8)?;
                    // A repeated message is none: the serde path skips it.
                    if s.nullable(|s| s.boolean())? == Some(true) {
                        return None;
                    }
                },
                b"metrics" => {
                    seen.once(9)?;
                    fields.usage = s.nullable(|s| s.token_counts(2))?;
                },
                _ | b"id" | b"created_at" | b"tool_args" | b"provider_data"
                | b"reasoning_content" => s.skip(2)?,
            });
            Some(())
        })?;
        // No role is serde's error; content holding tool uses or results too.
        if !seen.has(0) || !found.calls.is_empty() || !found.results.is_empty() {
            return None;
        }
        chat.message = Some(fields.into_message().ok()?);
        Some(())
    })
}
