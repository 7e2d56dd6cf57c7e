//! The OTLP JSON exports' shapes: of traces (resources, scopes, spans, their events,
//! status and attributes) and of logs (their records), as the protobuf JSON mapping
//! writes them.

use serde::Deserialize;
use serde_json::Value;

use crate::transcript::wire::Str;

/// An export: `{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}` (the
/// protobuf JSON mapping's camelCase names, or the snake_case ones). Resources and
/// scopes are not read.
#[derive(Debug, Deserialize)]
pub(in crate::transcript) struct Export<'a> {
    #[serde(rename = "resourceSpans", alias = "resource_spans", borrow)]
    pub(super) resource_spans: Vec<ResourceSpans<'a>>,
}

/// An export of logs: `{"resourceLogs": [{"scopeLogs": [{"logRecords": [...]}]}]}`.
/// Resources and scopes are not read.
#[derive(Debug, Deserialize)]
pub(in crate::transcript) struct LogsExport<'a> {
    #[serde(rename = "resourceLogs", alias = "resource_logs", borrow)]
    pub(super) resource_logs: Vec<ResourceLogs<'a>>,
}

#[derive(Debug, Deserialize)]
pub(super) struct ResourceLogs<'a> {
    #[serde(rename = "scopeLogs", alias = "scope_logs", default, borrow)]
    pub(super) scope_logs: Vec<ScopeLogs<'a>>,
}

#[derive(Debug, Deserialize)]
pub(super) struct ScopeLogs<'a> {
    #[serde(rename = "logRecords", alias = "log_records", default, borrow)]
    pub(super) log_records: Vec<LogRecord<'a>>,
}

/// A log record; its severity and flags are not read.
#[derive(Debug, Deserialize)]
pub(super) struct LogRecord<'a> {
    #[serde(rename = "timeUnixNano", alias = "time_unix_nano", default)]
    pub(super) time: Option<Nanos>,
    /// When the SDK saw the record: its time where it has none (or 0).
    #[serde(
        rename = "observedTimeUnixNano",
        alias = "observed_time_unix_nano",
        default
    )]
    pub(super) observed: Option<Nanos>,
    /// The event's name (OTLP 1.5 on), else its attribute `event.name`.
    #[serde(rename = "eventName", alias = "event_name", default, borrow)]
    pub(super) event_name: Option<Str<'a>>,
    #[serde(default)]
    pub(super) body: Option<AnyValue>,
    #[serde(default, borrow)]
    pub(super) attributes: Vec<KeyValue<'a>>,
    #[serde(rename = "traceId", alias = "trace_id", default, borrow)]
    pub(super) trace_id: Option<Str<'a>>,
    #[serde(rename = "spanId", alias = "span_id", default, borrow)]
    pub(super) span_id: Option<Str<'a>>,
}

#[derive(Debug, Deserialize)]
pub(super) struct ResourceSpans<'a> {
    #[serde(rename = "scopeSpans", alias = "scope_spans", default, borrow)]
    pub(super) scope_spans: Vec<ScopeSpans<'a>>,
}

#[derive(Debug, Deserialize)]
pub(super) struct ScopeSpans<'a> {
    #[serde(default, borrow)]
    pub(super) spans: Vec<Span<'a>>,
}

/// A span; its kind, links, flags and dropped counts are not read.
#[derive(Debug, Deserialize)]
pub(super) struct Span<'a> {
    #[serde(rename = "traceId", alias = "trace_id", default, borrow)]
    pub(super) trace_id: Option<Str<'a>>,
    #[serde(rename = "spanId", alias = "span_id", default, borrow)]
    pub(super) span_id: Option<Str<'a>>,
    #[serde(rename = "parentSpanId", alias = "parent_span_id", default, borrow)]
    pub(super) parent_span_id: Option<Str<'a>>,
    /// Its name: what Langfuse's SDK names a tool's or an agent's observation by.
    #[serde(default, borrow)]
    pub(super) name: Option<Str<'a>>,
    #[serde(rename = "startTimeUnixNano", alias = "start_time_unix_nano", default)]
    pub(super) start: Option<Nanos>,
    #[serde(rename = "endTimeUnixNano", alias = "end_time_unix_nano", default)]
    pub(super) end: Option<Nanos>,
    #[serde(default, borrow)]
    pub(super) attributes: Vec<KeyValue<'a>>,
    #[serde(default, borrow)]
    pub(super) events: Vec<Event<'a>>,
    #[serde(default, borrow)]
    pub(super) status: Option<Status<'a>>,
}

/// A span's event; or an event a log record holds, with its body.
#[derive(Debug, Deserialize)]
pub(super) struct Event<'a> {
    #[serde(borrow)]
    pub(super) name: Str<'a>,
    #[serde(default, borrow)]
    pub(super) attributes: Vec<KeyValue<'a>>,
    /// A log record's body (a span's event has none: its attributes are its fields).
    #[serde(skip)]
    pub(super) body: Option<AnyValue>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Status<'a> {
    /// 2 (or `STATUS_CODE_ERROR`) is an error.
    #[serde(default)]
    pub(super) code: Option<Value>,
    #[serde(default, borrow)]
    pub(super) message: Option<Str<'a>>,
}

#[derive(Debug, Deserialize)]
pub(super) struct KeyValue<'a> {
    #[serde(borrow)]
    pub(super) key: Str<'a>,
    #[serde(default)]
    pub(super) value: Option<AnyValue>,
}

/// An attribute's value, as the protobuf JSON mapping writes it: 64-bit integers as
/// strings (or numbers, as some exporters write them).
#[derive(Debug, Deserialize)]
pub(super) struct AnyValue {
    #[serde(rename = "stringValue", alias = "string_value", default)]
    pub(super) string: Option<String>,
    #[serde(rename = "intValue", alias = "int_value", default)]
    pub(super) int: Option<Nanos>,
    #[serde(rename = "doubleValue", alias = "double_value", default)]
    pub(super) double: Option<f64>,
    #[serde(rename = "boolValue", alias = "bool_value", default)]
    pub(super) boolean: Option<bool>,
    #[serde(rename = "arrayValue", alias = "array_value", default)]
    pub(super) array: Option<ArrayValue>,
    #[serde(rename = "kvlistValue", alias = "kvlist_value", default)]
    pub(super) map: Option<KeyValueList>,
    /// Bytes, base64 as the JSON mapping writes them: read as that text.
    #[serde(rename = "bytesValue", alias = "bytes_value", default)]
    pub(super) bytes: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct ArrayValue {
    #[serde(default)]
    pub(super) values: Vec<AnyValue>,
}

/// A map value's fields (a log record's body, a structured attribute).
#[derive(Debug, Deserialize)]
pub(super) struct KeyValueList {
    #[serde(default)]
    pub(super) values: Vec<Field>,
}

/// A field of a map value.
#[derive(Debug, Deserialize)]
pub(super) struct Field {
    pub(super) key: String,
    #[serde(default)]
    pub(super) value: Option<AnyValue>,
}

impl AnyValue {
    pub(super) fn text(&self) -> Option<&str> {
        self.string.as_deref()
    }

    pub(super) fn number(&self) -> Option<u64> {
        // A count some exporters write as a double: whole and in range, or not read.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let whole = |d: f64| (d >= 0.0 && d.fract() == 0.0 && d < 1.8e19).then_some(d as u64);
        self.int
            .map(|n| n.0)
            .or_else(|| self.double.and_then(whole))
    }

    /// The value as a message's text: a string as it is, any other value as JSON.
    pub(super) fn to_text(&self) -> String {
        match &self.string {
            Some(s) => s.clone(),
            None => super::genai::json_text(Some(&self.json())),
        }
    }

    /// The value as JSON: an event body's fields given as attributes, a structured
    /// body or attribute.
    pub(super) fn json(&self) -> Value {
        if let Some(s) = self.string.as_ref().or(self.bytes.as_ref()) {
            Value::String(s.clone())
        } else if let Some(n) = self.int {
            Value::from(n.0)
        } else if let Some(d) = self.double {
            Value::from(d)
        } else if let Some(b) = self.boolean {
            Value::Bool(b)
        } else if let Some(a) = &self.array {
            Value::Array(a.values.iter().map(AnyValue::json).collect())
        } else if let Some(m) = &self.map {
            let field = |f: &Field| {
                (
                    f.key.clone(),
                    f.value.as_ref().map_or(Value::Null, AnyValue::json),
                )
            };
            Value::Object(m.values.iter().map(field).collect())
        } else {
            Value::Null
        }
    }
}

/// A count of nanoseconds (or an integer attribute): a string or a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Nanos(pub(super) u64);

impl<'de> Deserialize<'de> for Nanos {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Nanos, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Number(n) => n
                .as_u64()
                .or_else(|| n.as_i64().map(|i| i.max(0) as u64))
                .map(Nanos)
                .ok_or_else(|| serde::de::Error::custom("expected a whole number")),
            Value::String(s) => s.parse().map(Nanos).map_err(|_| {
                serde::de::Error::custom(format!("expected a whole number, found \"{s}\""))
            }),
            other => Err(serde::de::Error::custom(format!(
                "expected a whole number, found {other}"
            ))),
        }
    }
}
