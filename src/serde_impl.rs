//! serde support (feature `serde`): DSL values travel as their canonical text.
//!
//! - [`DoneSequence`] serializes as DSL text and deserializes from DSL text or from a
//!   [`SequenceObject`] with Langroid's field names.
//! - [`AgentEvent`] serializes as DSL text (`"T[calculator]"`) and deserializes from
//!   it.
//! - [`DoneSequences`] deserializes a list that may mix both forms, and its errors
//!   name the index of the bad entry.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Serialize, Serializer};

use crate::list::{DoneSequences, ListError};
use crate::object::{ElementObject, EventObject, SequenceObject};
use crate::{AgentEvent, DoneSequence, Error, Role};

impl Serialize for DoneSequence {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl Serialize for AgentEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl Serialize for DoneSequences {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// A list entry before it is checked: text or an object.
enum Raw {
    Text(String),
    Object(SequenceObject),
}

impl Raw {
    fn into_sequence(self) -> Result<DoneSequence, Error> {
        match self {
            Raw::Text(text) => Ok(DoneSequence::parse(&text)?),
            Raw::Object(object) => Ok(DoneSequence::try_from(object)?),
        }
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a done sequence such as \"T[calculator], A\" or {\"events\": [...]}")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Raw, E> {
        Ok(Raw::Text(text.to_owned()))
    }

    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Raw, M::Error> {
        SequenceObject::deserialize(de::value::MapAccessDeserializer::new(map)).map(Raw::Object)
    }
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Raw, D::Error> {
        deserializer.deserialize_any(RawVisitor)
    }
}

impl<'de> Deserialize<'de> for DoneSequence {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<DoneSequence, D::Error> {
        Raw::deserialize(deserializer)?
            .into_sequence()
            .map_err(de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for AgentEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<AgentEvent, D::Error> {
        struct EventVisitor;
        impl Visitor<'_> for EventVisitor {
            type Value = AgentEvent;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an event such as \"T[calculator]\" or \"A@Database\"")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<AgentEvent, E> {
                text.parse().map_err(E::custom)
            }
        }
        deserializer.deserialize_str(EventVisitor)
    }
}

impl<'de> Deserialize<'de> for ElementObject {
    /// An event object, or a list of them (a conjunction). Written by hand rather than
    /// `untagged` so that an error inside an event says what it is instead of "did not
    /// match any variant".
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ElementObject, D::Error> {
        struct ElementVisitor;
        impl<'de> Visitor<'de> for ElementVisitor {
            type Value = ElementObject;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an event object {\"event_type\": ...} or a list of them")
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<ElementObject, M::Error> {
                EventObject::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(ElementObject::Event)
            }
            fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<ElementObject, S::Error> {
                Vec::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(ElementObject::All)
            }
        }
        deserializer.deserialize_any(ElementVisitor)
    }
}

impl<'de> Deserialize<'de> for DoneSequences {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<DoneSequences, D::Error> {
        struct ListVisitor;
        impl<'de> Visitor<'de> for ListVisitor {
            type Value = DoneSequences;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of done sequences (DSL strings or objects)")
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<DoneSequences, S::Error> {
                // One regex scope for the list: equal regexes compiled once, and all of
                // them within MAX_REGEX_MEMORY.
                crate::text::scoped(|| {
                    let mut out = Vec::new();
                    let mut index = 0;
                    loop {
                        let raw = seq.next_element::<Raw>().map_err(|e| {
                            de::Error::custom(format_args!("done sequence {index}: {e}"))
                        })?;
                        let Some(raw) = raw else { break };
                        let sequence = raw.into_sequence().map_err(|error| {
                            de::Error::custom(ListError {
                                index,
                                error: Box::new(error),
                            })
                        })?;
                        out.push(sequence);
                        index += 1;
                    }
                    Ok(DoneSequences::from(out))
                })
            }
        }
        deserializer.deserialize_seq(ListVisitor)
    }
}

// ---- message values ----------------------------------------------------------------

/// A role is its canonical name; any accepted name deserializes (`"assistant"`,
/// `"LLM"`, `"tool"`, ...).
impl Serialize for Role {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Role, D::Error> {
        struct RoleVisitor;
        impl Visitor<'_> for RoleVisitor {
            type Value = Role;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a role: user, llm, agent or system")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Role, E> {
                text.parse().map_err(E::custom)
            }
        }
        deserializer.deserialize_str(RoleVisitor)
    }
}

/// A base kind serializes as its DSL letter: `T`, `L`, `A`, `U`, `N`.
impl Serialize for crate::BaseKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.letter())
    }
}
