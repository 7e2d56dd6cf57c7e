//! A serde `Deserializer` over Python values, so that the core's own serde schemas
//! read Python dicts directly: a message dict through the transcript's schema (its
//! fields, its checks, its errors), a configuration dict through `TaskConfig`'s. One
//! schema, in the core; nothing here knows a field name.

use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

/// A Python value, read by serde, at a nesting depth (containers deeper than
/// [`MAX_DEPTH`] are refused, as the transcript reader refuses deep JSON, so that a
/// hostile value cannot exhaust the stack).
pub(crate) struct PyDe<'a, 'py>(pub(crate) &'a Bound<'py, PyAny>, pub(crate) usize);

/// The deepest nesting of dicts and lists read.
pub(crate) const MAX_DEPTH: usize = doneseq::transcript::MAX_JSON_DEPTH;

impl<'a, 'py> PyDe<'a, 'py> {
    /// A value at the top.
    pub(crate) fn new(value: &'a Bound<'py, PyAny>) -> PyDe<'a, 'py> {
        PyDe(value, 0)
    }

    fn deeper(&self) -> Result<usize, DeError> {
        if self.1 >= MAX_DEPTH {
            return Err(DeError(format!(
                "values nested deeper than {MAX_DEPTH} dicts and lists"
            )));
        }
        Ok(self.1 + 1)
    }
}

/// What went wrong reading a Python value: serde's message (an unknown field, a
/// missing one, a value of the wrong type), or a Python value serde cannot read.
#[derive(Debug)]
pub(crate) struct DeError(pub(crate) String);

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> DeError {
        DeError(msg.to_string())
    }
}

impl From<PyErr> for DeError {
    fn from(e: PyErr) -> DeError {
        DeError(e.to_string())
    }
}

/// The Python type name of `value`, for error messages.
pub(crate) fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string())
}

impl<'de> de::Deserializer<'de> for PyDe<'_, '_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let value = self.0;
        // Strings first: most values read are keys and texts.
        if let Ok(s) = value.cast::<PyString>() {
            // An owned copy (the stable ABI for 3.9 has no borrowed UTF-8) is handed
            // over, not copied again.
            return match s.to_cow()? {
                std::borrow::Cow::Borrowed(text) => visitor.visit_str(text),
                std::borrow::Cow::Owned(text) => visitor.visit_string(text),
            };
        }
        if value.is_none() {
            return visitor.visit_unit();
        }
        // bool before int: Python's bool is an int.
        if let Ok(b) = value.cast::<PyBool>() {
            return visitor.visit_bool(b.is_true());
        }
        if let Ok(i) = value.cast::<PyInt>() {
            if let Ok(n) = i.extract::<i64>() {
                return visitor.visit_i64(n);
            }
            if let Ok(n) = i.extract::<u64>() {
                return visitor.visit_u64(n);
            }
            return Err(DeError(format!("integer {i} is out of range")));
        }
        if let Ok(f) = value.cast::<PyFloat>() {
            return visitor.visit_f64(f.value());
        }
        if let Ok(d) = value.cast::<PyDict>() {
            return visitor.visit_map(Entries {
                items: d.iter(),
                value: None,
                depth: self.deeper()?,
                fields: None,
            });
        }
        if let Ok(l) = value.cast::<PyList>() {
            return visitor.visit_seq(Items {
                items: l.iter().collect::<Vec<_>>().into_iter(),
                depth: self.deeper()?,
            });
        }
        if let Ok(t) = value.cast::<PyTuple>() {
            return visitor.visit_seq(Items {
                items: t.iter().collect::<Vec<_>>().into_iter(),
                depth: self.deeper()?,
            });
        }
        Err(DeError(format!(
            "a value of type {} (expected None, bool, int, float, str, dict, list or tuple)",
            type_name(value)
        )))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if self.0.is_none() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        // A unit variant as its name; others as a dict of one entry.
        if let Ok(s) = self.0.cast::<PyString>() {
            let name: String = s.to_cow()?.into_owned();
            return visitor.visit_enum(name.into_deserializer());
        }
        Err(DeError(format!(
            "a value of type {} where a name was expected",
            type_name(self.0)
        )))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let Ok(d) = self.0.cast::<PyDict>() else {
            return self.deserialize_any(visitor);
        };
        // A struct's keys are recognised by identity with its interned field names
        // (the keys of a dict literal are interned): no UTF-8 conversion per key.
        let names = interned(d.py(), fields);
        visitor.visit_map(Entries {
            items: d.iter(),
            value: None,
            depth: self.deeper()?,
            fields: Some((fields, names)),
        })
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        // Skipped values are not converted, only checked for depth.
        skip(self.0, self.1)?;
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf unit unit_struct seq tuple tuple_struct map identifier
    }
}

/// A dict's entries. Keys must be strings, as in JSON.
struct Entries<'py> {
    items: pyo3::types::dict::BoundDictIterator<'py>,
    value: Option<Bound<'py, PyAny>>,
    depth: usize,
    /// A struct's field names and their interned strings, to recognise keys by
    /// identity.
    fields: Option<(&'static [&'static str], Names)>,
}

impl<'de> MapAccess<'de> for Entries<'_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some((key, value)) = self.items.next() else {
            return Ok(None);
        };
        if !key.is_instance_of::<PyString>() {
            return Err(DeError(format!(
                "a dict key of type {} (keys are strings)",
                type_name(&key)
            )));
        }
        self.value = Some(value);
        if let Some((fields, names)) = &self.fields
            && let Some(i) = names.iter().position(|n| n.as_ptr() == key.as_ptr())
        {
            let field: de::value::BorrowedStrDeserializer<'de, DeError> =
                de::value::BorrowedStrDeserializer::new(fields[i]);
            return seed.deserialize(field).map(Some);
        }
        seed.deserialize(PyDe(&key, self.depth)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let value = self
            .value
            .take()
            .ok_or_else(|| DeError("a value without its key".into()))?;
        seed.deserialize(PyDe(&value, self.depth))
    }
}

/// A list's or a tuple's items.
struct Items<'py> {
    items: std::vec::IntoIter<Bound<'py, PyAny>>,
    depth: usize,
}

impl<'de> SeqAccess<'de> for Items<'_> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        match self.items.next() {
            Some(item) => seed.deserialize(PyDe(&item, self.depth)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// Checks a skipped value's depth without converting it.
fn skip(value: &Bound<'_, PyAny>, depth: usize) -> Result<(), DeError> {
    let deeper = || {
        if depth >= MAX_DEPTH {
            Err(DeError(format!(
                "values nested deeper than {MAX_DEPTH} dicts and lists"
            )))
        } else {
            Ok(depth + 1)
        }
    };
    if let Ok(d) = value.cast::<PyDict>() {
        let depth = deeper()?;
        for (_, v) in d.iter() {
            skip(&v, depth)?;
        }
    } else if let Ok(l) = value.cast::<PyList>() {
        let depth = deeper()?;
        for v in l.iter() {
            skip(&v, depth)?;
        }
    } else if let Ok(t) = value.cast::<PyTuple>() {
        let depth = deeper()?;
        for v in t.iter() {
            skip(&v, depth)?;
        }
    }
    Ok(())
}

/// A struct's field names as interned Python strings.
type Names = Arc<[Py<PyString>]>;

thread_local! {
    /// Each struct's field names as interned Python strings, by the address of the
    /// field list serde gives (a `'static` slice per struct).
    static INTERNED: RefCell<Vec<(usize, Names)>> = const { RefCell::new(Vec::new()) };
}

/// The interned Python strings of `fields`, made once per thread.
fn interned(py: Python<'_>, fields: &'static [&'static str]) -> Names {
    let key = fields.as_ptr() as usize;
    INTERNED.with(|cache| {
        if let Some((_, names)) = cache.borrow().iter().find(|(k, _)| *k == key) {
            return Arc::clone(names);
        }
        let names: Names = fields
            .iter()
            .map(|f| PyString::intern(py, f).unbind())
            .collect();
        cache.borrow_mut().push((key, Arc::clone(&names)));
        names
    })
}
