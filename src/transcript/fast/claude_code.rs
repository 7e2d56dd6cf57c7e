//! Claude Code's session records scanned straight from their bytes into the
//! [`Record`] serde fills: the record's type, flags and message, its content blocks
//! read as they are scanned (by the conversion's own [`parts::fold`]), every other key
//! skipped, as serde does. Anything the scanner is not sure of (a block the
//! conversion refuses, a duplicate key, a `null` role, ...) gives up, and the serde
//! path reads the record.
//!
//! A record is mostly its envelope (ids, parent, times, working directory, version,
//! branch, request details): the keys Claude Code writes on every record are named in
//! the last arms, so that each is skipped at a known key's cost, not scanned as an
//! unknown one.
//!
//! [`parts::fold`]: crate::transcript::parts::fold

use super::scan::{Scan, Seen};
use crate::transcript::claude_code::{Blocks, Body, Record};
use crate::transcript::parts::Found;
use crate::transcript::wire::Str;

/// The Claude Code record in `text` (a trimmed line) into `record` (a default one),
/// if the scanner is sure of it.
pub(in crate::transcript) fn record<'a>(text: &'a str, record: &mut Record<'a>) -> Option<()> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        s.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    record.kind = s.str()?;
                },
                b"message" => {
                    seen.once(1)?;
                    record.message = s.nullable(|s| s.claude_code_body())?;
                },
                b"isSidechain" => {
                    seen.once(2)?;
                    record.sidechain = s.nullable(|s| s.boolean())?;
                },
                b"isMeta" => {
                    seen.once(3)?;
                    record.meta = s.nullable(|s| s.boolean())?;
                },
                b"isCompactSummary" => {
                    seen.once(4)?;
                    record.compact_summary = s.nullable(|s| s.boolean())?;
                },
                b"isApiErrorMessage" => {
                    seen.once(5)?;
                    record.api_error = s.nullable(|s| s.boolean())?;
                },
                // Known by being there, not `null`.
                b"sessionId" => {
                    seen.once(6)?;
                    record.session_id = s.present(2)?;
                },
                b"agentType" => {
                    seen.once(7)?;
                    record.agent_type = s.present(2)?;
                },
                b"leafUuid" => {
                    seen.once(8)?;
                    record.leaf_uuid = s.present(2)?;
                },
                b"isSnapshotUpdate" => {
                    seen.once(9)?;
                    record.snapshot_update = s.present(2)?;
                },
                _ | b"parentUuid" | b"uuid" | b"timestamp" | b"userType" | b"entrypoint"
                | b"cwd" | b"version" | b"gitBranch" | b"requestId" | b"promptId"
                | b"slug" | b"toolUseResult" | b"sourceToolAssistantUUID"
                | b"permissionMode" | b"promptSource" | b"sentAtMs" | b"rowSource"
                | b"turnOrigin" | b"turnPosition" | b"apiBlockIndex" | b"requestRef"
                | b"requestedModel" | b"promptCacheRequested" | b"perTurnEffort"
                | b"madeBy" | b"toolInputStreamMs" => s.skip(2)?,
            });
            Some(())
        })
    })
}

impl<'a> Scan<'a> {
    /// A record's message (its braces at nesting 2): `role` required, as serde reads
    /// it; its content read into text, calls and results; any other key (`model`,
    /// `stop_reason`, ...) skipped.
    fn claude_code_body(&mut self) -> Option<Body<'a>> {
        let mut seen = Seen::default();
        let (mut id, mut kind, mut role, mut usage) = (None, None, None, None);
        let mut content = Blocks::default();
        self.object(|s| {
            match_key!(s, {
                b"id" => {
                    seen.once(0)?;
                    id = s.str()?;
                },
                b"type" => {
                    seen.once(1)?;
                    kind = s.str()?;
                },
                b"role" => {
                    seen.once(2)?;
                    role = Some(Str(s.string()?));
                },
                b"content" => {
                    seen.once(3)?;
                    let read = s.nullable(|s| {
                        let mut found = Found::default();
                        let text = s.content(3, &mut found)?;
                        Some(Blocks::Read(text, found))
                    })?;
                    content = read.unwrap_or_default();
                },
                b"usage" => {
                    seen.once(4)?;
                    usage = s.nullable(|s| s.provider_usage(3))?;
                },
                _ | b"model" | b"stop_reason" | b"stop_sequence" | b"stop_details"
                | b"container" | b"context_management" => s.skip(3)?,
            });
            Some(())
        })?;
        Some(Body {
            id,
            kind,
            role: role?,
            content,
            usage,
        })
    }
}
