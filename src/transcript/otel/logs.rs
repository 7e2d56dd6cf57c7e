//! An export of logs: the GenAI events its records hold, as the chat calls they
//! record, each a span such as a trace holds.

use std::borrow::Cow;
use std::collections::HashMap;

use super::genai::events;
use super::spans::{Event, LogsExport, Span};
use crate::transcript::wire::Str;

/// The event that holds a whole chat call in the latest conventions: its attributes
/// are a chat span's (the messages structured, or as JSON text).
pub(super) const DETAILS: &str = "gen_ai.client.inference.operation.details";

/// The older events: each a message of a call's input, or (`gen_ai.choice`) of its
/// output.
const INPUT_EVENTS: [&str; 4] = [
    "gen_ai.system.message",
    "gen_ai.user.message",
    "gen_ai.assistant.message",
    "gen_ai.tool.message",
];
const CHOICE: &str = "gen_ai.choice";

/// How many calls whose records went on past their export (no choice yet) wait for
/// the next one's, and how many records each may hold (a transcript's memory must not
/// grow with its length: a call of more is read as it is).
const MAX_HELD: usize = 256;
const MAX_HELD_RECORDS: usize = 4096;

/// The chat calls the records of `export` hold, as spans, and how many records it
/// held. A details event is a call (its attributes a chat span's). The older events
/// of one span (a record a message) are a call, its events theirs; of records that
/// name no span, as of one span's, a call's input after another call's choices is
/// the next call's.
///
/// A batch a line (the Collector's file exporter) may cut a call's older events
/// anywhere: a call whose choice has not come yet waits in `held` for the next
/// export's records, which join it; unless nothing of it came in this export, or a
/// call that started after it completed (it failed): then it is read as it is. (The
/// reader reads what is still held at the transcript's end.)
pub(super) fn calls<'a>(
    export: LogsExport<'a>,
    held: &mut Vec<Span<'static>>,
) -> (Vec<Span<'a>>, usize) {
    // The calls the last export left waiting first: this one's records join them.
    let carried = held.len();
    let mut calls: Vec<Span<'a>> = std::mem::take(held);
    let mut joined = vec![false; carried];
    // Of each call: whether a choice came, and how many of its events were checked
    // (when it was held: its events before this export's).
    let mut answered: Vec<bool> = vec![false; carried];
    let mut checked: Vec<usize> = calls.iter().map(|c| c.events.len()).collect();
    // The call each span's older events go to, by trace and span id.
    let mut open: HashMap<(String, String), usize> = HashMap::new();
    for (at, call) in calls.iter().enumerate() {
        open.insert((id(&call.trace_id), id(&call.span_id)), at);
    }
    let mut count = 0;
    let records = (export.resource_logs.into_iter())
        .flat_map(|r| r.scope_logs)
        .flat_map(|s| s.log_records);
    for mut record in records {
        count += 1;
        let name = record.event_name.take().or_else(|| {
            let kv = record
                .attributes
                .iter()
                .find(|kv| kv.key.0 == "event.name")?;
            Some(Str(Cow::Owned(kv.value.as_ref()?.text()?.to_owned())))
        });
        let Some(name) = name else {
            continue;
        };
        // Its time, else when the SDK saw it.
        let time = record.time.filter(|t| t.0 > 0).or(record.observed);
        let new_call = |trace_id: Option<Str<'a>>, span_id: Option<Str<'a>>| Span {
            trace_id,
            span_id,
            parent_span_id: None,
            name: None,
            start: time,
            end: time,
            attributes: Vec::new(),
            events: Vec::new(),
            status: None,
        };
        if name.0 == DETAILS {
            let mut call = new_call(record.trace_id, record.span_id);
            call.attributes = record.attributes;
            calls.push(call);
            answered.push(true);
            checked.push(0);
            continue;
        }
        let input = INPUT_EVENTS.contains(&&*name.0);
        if !input && name.0 != CHOICE {
            continue;
        }
        let key = (id(&record.trace_id), id(&record.span_id));
        let at = match open.get(&key) {
            // A call's input after its choices: the next call's.
            Some(&at) if !(input && answered[at]) => at,
            _ => {
                calls.push(new_call(record.trace_id, record.span_id));
                answered.push(false);
                checked.push(0);
                open.insert(key, calls.len() - 1);
                calls.len() - 1
            }
        };
        if let Some(joined) = joined.get_mut(at) {
            *joined = true;
        }
        answered[at] |= !input;
        let call = &mut calls[at];
        call.end = call.end.max(time);
        call.events.push(Event {
            name,
            attributes: Vec::new(),
            body: record.body,
        });
    }
    let last_answered = (calls.iter().zip(&answered))
        .filter_map(|(c, &answered)| c.start.filter(|_| answered))
        .max();
    let mut now = Vec::with_capacity(calls.len());
    for (at, call) in calls.into_iter().enumerate() {
        let waits = !answered[at]
            && joined.get(at).copied().unwrap_or(true)
            && last_answered.is_none_or(|last| Some(last) <= call.start)
            && held.len() < MAX_HELD
            && call.events.len() <= MAX_HELD_RECORDS
            // An error is said at the record's line, not the next export's.
            && events(&call.events[checked[at]..]).is_ok();
        if waits {
            held.push(owned(call));
        } else {
            now.push(call);
        }
    }
    (now, count)
}

/// A trace or span id as a key (none as empty).
fn id(s: &Option<Str<'_>>) -> String {
    s.as_ref().map_or_else(String::new, |s| s.0.to_string())
}

/// A call of the older events that outlives its export's text.
fn owned(call: Span<'_>) -> Span<'static> {
    let owned = |s: Option<Str<'_>>| s.map(|s| Str(Cow::Owned(s.0.into_owned())));
    Span {
        trace_id: owned(call.trace_id),
        span_id: owned(call.span_id),
        parent_span_id: None,
        name: None,
        start: call.start,
        end: call.end,
        // A call of the older events has no attributes, and its events none but
        // their body.
        attributes: Vec::new(),
        events: (call.events.into_iter())
            .map(|e| Event {
                name: Str(Cow::Owned(e.name.0.into_owned())),
                attributes: Vec::new(),
                body: e.body,
            })
            .collect(),
        status: None,
    }
}
