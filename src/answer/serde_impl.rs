//! serde support for the answer protocol (feature `serde`), in one place to audit the
//! wire format:
//!
//! - [`AnswerValue`] is the plain JSON value (an `Expr` serializes as its text; ints
//!   beyond `i64` deserialize as floats).
//! - [`FinalKind`] is rlm-code's `final_type` string, [`RejectReason`] its
//!   [`name`](RejectReason::name).
//! - [`FinalDetection`] serializes with rlm-code's field names (`final_type`, not
//!   `kind`) and spans as `[start, end]`, like the CLI's errors.
//! - [`FinalPatternConfig`] has rlm-code's field names and defaults; a
//!   [`FinalPatternPolicy`] (de)serializes as its configuration.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};

use super::{
    Ambiguity, AnswerValue, FinalDetection, FinalKind, FinalPatternConfig, FinalPatternPolicy,
    RejectReason, Rejection,
};

impl Serialize for AnswerValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AnswerValue::Null => serializer.serialize_unit(),
            AnswerValue::Bool(b) => serializer.serialize_bool(*b),
            AnswerValue::Int(i) => serializer.serialize_i64(*i),
            AnswerValue::Float(f) => serializer.serialize_f64(*f),
            AnswerValue::String(s) | AnswerValue::Expr(s) => serializer.serialize_str(s),
            AnswerValue::List(items) => serializer.collect_seq(items),
            AnswerValue::Object(fields) => {
                let mut map = serializer.serialize_map(Some(fields.len()))?;
                for (k, v) in fields {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for AnswerValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = AnswerValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<AnswerValue, E> {
        Ok(AnswerValue::Null)
    }

    fn visit_none<E>(self) -> Result<AnswerValue, E> {
        Ok(AnswerValue::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<AnswerValue, D::Error> {
        AnswerValue::deserialize(d)
    }

    fn visit_bool<E>(self, b: bool) -> Result<AnswerValue, E> {
        Ok(AnswerValue::Bool(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<AnswerValue, E> {
        Ok(AnswerValue::Int(i))
    }

    fn visit_u64<E>(self, u: u64) -> Result<AnswerValue, E> {
        // Beyond i64, as for parsed literals: a float.
        Ok(i64::try_from(u).map_or(AnswerValue::Float(u as f64), AnswerValue::Int))
    }

    fn visit_f64<E>(self, f: f64) -> Result<AnswerValue, E> {
        Ok(AnswerValue::Float(f))
    }

    fn visit_str<E>(self, s: &str) -> Result<AnswerValue, E> {
        Ok(AnswerValue::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<AnswerValue, E> {
        Ok(AnswerValue::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AnswerValue, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(AnswerValue::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AnswerValue, A::Error> {
        let mut fields: Vec<(String, AnswerValue)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        while let Some((key, value)) = map.next_entry::<String, AnswerValue>()? {
            // A repeated key keeps its first position and its last value, as parsing does.
            match index.get(&key) {
                Some(&k) => fields[k].1 = value,
                None => {
                    index.insert(key.clone(), fields.len());
                    fields.push((key, value));
                }
            }
        }
        Ok(AnswerValue::Object(fields))
    }
}

impl Serialize for FinalKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for FinalKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        match s.as_str() {
            "direct" => Ok(FinalKind::Direct),
            "variable" => Ok(FinalKind::Variable),
            "submit" => Ok(FinalKind::Submit),
            other => Err(de::Error::unknown_variant(
                other,
                &["direct", "variable", "submit"],
            )),
        }
    }
}

impl Serialize for RejectReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// A span as `[start, end]`.
struct Span<'a>(&'a Range<usize>);

impl Serialize for Span<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        [self.0.start, self.0.end].serialize(serializer)
    }
}

impl Serialize for Rejection {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Rejection", 2)?;
        s.serialize_field("span", &Span(&self.span))?;
        s.serialize_field("reason", &self.reason)?;
        s.end()
    }
}

impl Serialize for Ambiguity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Ambiguity", 2)?;
        s.serialize_field("first", &Span(&self.first))?;
        s.serialize_field("second", &Span(&self.second))?;
        s.end()
    }
}

impl Serialize for FinalDetection {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("FinalDetection", 8)?;
        s.serialize_field("detected", &self.detected)?;
        s.serialize_field("final_type", &self.kind)?;
        s.serialize_field("content", &self.content)?;
        s.serialize_field("raw_match", &self.raw_match)?;
        s.serialize_field("span", &self.span.as_ref().map(Span))?;
        s.serialize_field("value", &self.value)?;
        s.serialize_field("ambiguity", &self.ambiguity)?;
        s.serialize_field("rejected", &self.rejected)?;
        s.end()
    }
}

/// The wire form of [`FinalPatternConfig`]: rlm-code's names and defaults.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct ConfigWire {
    final_patterns: Vec<String>,
    case_sensitive: bool,
    extract_answer: bool,
    strict: bool,
}

impl Default for ConfigWire {
    fn default() -> Self {
        FinalPatternConfig::default().into()
    }
}

impl From<FinalPatternConfig> for ConfigWire {
    fn from(c: FinalPatternConfig) -> Self {
        ConfigWire {
            final_patterns: c.final_patterns,
            case_sensitive: c.case_sensitive,
            extract_answer: c.extract_answer,
            strict: c.strict,
        }
    }
}

impl From<ConfigWire> for FinalPatternConfig {
    fn from(c: ConfigWire) -> Self {
        FinalPatternConfig {
            final_patterns: c.final_patterns,
            case_sensitive: c.case_sensitive,
            extract_answer: c.extract_answer,
            strict: c.strict,
        }
    }
}

impl Serialize for FinalPatternConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ConfigWire::from(self.clone()).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for FinalPatternConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ConfigWire::deserialize(deserializer).map(FinalPatternConfig::from)
    }
}

impl Serialize for FinalPatternPolicy {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.config().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for FinalPatternPolicy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let config = FinalPatternConfig::deserialize(deserializer)?;
        FinalPatternPolicy::new(config).map_err(de::Error::custom)
    }
}
