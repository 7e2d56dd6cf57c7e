//! Codex CLI's rollout records scanned straight from their bytes: the record's type
//! and payload, and where the type is written first, as Codex writes it, the payload
//! read in the same pass (the payload crossed once; serde's path keeps it as text,
//! then reads it again): a `response_item`'s Responses item into the item serde
//! fills, a `token_usage_record`'s usage, an `event_msg`'s type and token counts. Any
//! other payload is kept as its text, for the record's reader.
//! Anything the scanner is not sure of gives up, and the serde path reads the line.

use super::scan::{Scan, Seen};
use crate::transcript::codex::{Counts, Event, Payload};
use crate::transcript::responses::Item;
use crate::transcript::wire::{ProviderUsage, Str};

/// The Codex record in `text` (a trimmed line): its type and payload, a
/// `response_item`'s item scanned into `item` (a default one), if the scanner is
/// sure of it.
pub(in crate::transcript) fn record<'a>(
    text: &'a str,
    item: &mut Item<'a>,
) -> Option<(Option<Str<'a>>, Option<Payload<'a>>)> {
    super::whole(text, |s| {
        let mut seen = Seen::default();
        let (mut kind, mut payload) = (None::<Str<'a>>, None);
        s.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    kind = s.str()?;
                },
                b"payload" => {
                    seen.once(1)?;
                    let kind = kind.as_ref().map_or("", |k| &*k.0);
                    payload = s.nullable(|s| match kind {
                        "response_item" => {
                            let ((), text) = s.spanned(|s| s.responses_item::<2>(item))?;
                            Some(Payload::Item(text))
                        }
                        "token_usage_record" => s.usage_record().map(Payload::Usage),
                        "event_msg" => s.event().map(Payload::Event),
                        _ => s.raw(2).map(Payload::Text),
                    })?;
                },
                _ | b"timestamp" | b"ordinal" | b"metadata" => s.skip(2)?,
            });
            Some(())
        })?;
        Some((kind, payload))
    })
}

impl<'a> Scan<'a> {
    /// An `event_msg`'s payload (its braces at nesting 2): its type, and a
    /// `token_count`'s last call's usage; any other key skipped, as serde does.
    fn event(&mut self) -> Option<Event<'a>> {
        let mut seen = Seen::default();
        let mut event = Event::default();
        self.object(|s| {
            match_key!(s, {
                b"type" => {
                    seen.once(0)?;
                    event.kind = s.str()?;
                },
                b"info" => {
                    seen.once(1)?;
                    event.info = s.nullable(|s| s.counts())?;
                },
                _ => s.skip(3)?,
            });
            Some(())
        })?;
        Some(event)
    }

    /// A `token_count`'s `info` (its braces at nesting 3): the last call's usage;
    /// the totals and the context window skipped.
    fn counts(&mut self) -> Option<Counts> {
        let mut counts = Counts::default();
        let mut seen = Seen::default();
        self.object(|s| {
            match_key!(s, {
                b"last_token_usage" => {
                    seen.once(0)?;
                    counts.last_token_usage = s.nullable(|s| s.provider_usage(4))?;
                },
                _ => s.skip(4)?,
            });
            Some(())
        })?;
        Some(counts)
    }

    /// A `token_usage_record`'s payload (its braces at nesting 2): its `usage`,
    /// required as serde reads it; its ids skipped.
    fn usage_record(&mut self) -> Option<ProviderUsage> {
        let mut usage = None;
        self.object(|s| {
            match_key!(s, {
                b"usage" => {
                    usage.is_none().then_some(())?;
                    usage = Some(s.provider_usage(3)?);
                },
                _ | b"thread_id" | b"turn_id" | b"session_id" | b"root_turn_id"
                | b"response_id" => s.skip(3)?,
            });
            Some(())
        })?;
        usage
    }
}
