//! An export of logs: the GenAI events its records hold, as the chat calls they
//! record, each a span such as a trace holds.

use std::borrow::Cow;
use std::collections::HashMap;

use super::spans::{Event, LogsExport, Span};
use crate::transcript::wire::Str;

/// The event that holds a whole chat call in the latest conventions: its attributes
/// are a chat span's (the messages structured, or as JSON text).
const DETAILS: &str = "gen_ai.client.inference.operation.details";

/// The older events: each a message of a call's input, or (`gen_ai.choice`) of its
/// output.
const INPUT_EVENTS: [&str; 4] = [
    "gen_ai.system.message",
    "gen_ai.user.message",
    "gen_ai.assistant.message",
    "gen_ai.tool.message",
];
const CHOICE: &str = "gen_ai.choice";

/// The chat calls the records of `export` hold, as spans (in the order each call's
/// first record came), and how many records hold none. A details event is a call
/// (its attributes a chat span's). The older events of one span (a record a message)
/// are a call, its events theirs; of records that name no span, as of one span's, a
/// call's input after another call's choices is the next call's.
pub(super) fn calls<'a>(export: LogsExport<'a>) -> (Vec<Span<'a>>, usize) {
    let mut calls: Vec<Span<'a>> = Vec::new();
    // The call each span's older events go to, by trace and span id.
    let mut open: HashMap<(String, String), usize> = HashMap::new();
    let mut others = 0;
    let records = (export.resource_logs.into_iter())
        .flat_map(|r| r.scope_logs)
        .flat_map(|s| s.log_records);
    for mut record in records {
        let name = record.event_name.take().or_else(|| {
            let kv = record
                .attributes
                .iter()
                .find(|kv| kv.key.0 == "event.name")?;
            Some(Str(Cow::Owned(kv.value.as_ref()?.text()?.to_owned())))
        });
        let Some(name) = name else {
            others += 1;
            continue;
        };
        // Its time, else when the SDK saw it.
        let time = record.time.filter(|t| t.0 > 0).or(record.observed);
        let new_call = |trace_id: Option<Str<'a>>, span_id: Option<Str<'a>>| Span {
            trace_id,
            span_id,
            parent_span_id: None,
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
            continue;
        }
        let input = INPUT_EVENTS.contains(&&*name.0);
        if !input && name.0 != CHOICE {
            others += 1;
            continue;
        }
        let id = |s: &Option<Str<'_>>| s.as_ref().map_or_else(String::new, |s| s.0.to_string());
        let key = (id(&record.trace_id), id(&record.span_id));
        let at = match open.get(&key) {
            // A call's input after its choices: the next call's.
            Some(&at) if !(input && calls[at].events.iter().any(|e| e.name.0 == CHOICE)) => at,
            _ => {
                calls.push(new_call(record.trace_id, record.span_id));
                open.insert(key, calls.len() - 1);
                calls.len() - 1
            }
        };
        let call = &mut calls[at];
        call.end = call.end.max(time);
        call.events.push(Event {
            name,
            attributes: Vec::new(),
            body: record.body,
        });
    }
    (calls, others)
}
