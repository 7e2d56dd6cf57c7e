//! serde for [`Condition`]: tagged objects out; an expression string, a list or an
//! object in, with awaken's `StopConditionSpec` shapes among the objects.
//!
//! - **Serialize**: `{"type": "max_turns", "turns": 10}`, the tag being the canonical
//!   name; options at their default are left out, and so is everything that would be
//!   `null` (TOML has no null). Combinators are `{"type": "any", "of": [...]}` and
//!   `{"type": "not", "of": {...}}`.
//! - **Deserialize** from
//!   - a string: the stop-expression language (`"tool(submit) | max_turns(10)"`);
//!   - a list: `any` of its entries, in order (awaken's list of policies, where the
//!     first stop wins);
//!   - an object tagged by `type` (any name of the language, aliases included), with
//!     unknown fields refused; awaken's field names where they differ (`rounds`,
//!     `max_total`, `tool_name`, `window`); rlm-code's option names for `confidence`
//!     and `reward`; a `seq` may hold Langroid's object form of a sequence;
//!   - `{"all": [...]}`, `{"any": [...]}`, `{"not": {...}}`: one-key shorthands.
//!
//! The visitor reads the `type` first when it comes first (as it does in everything
//! this module writes), and hands the rest of the map to a derived helper struct, so
//! that errors keep the format's own positions. A map whose `type` comes later is
//! buffered as JSON values first. Nesting is counted per thread and refused past
//! [`MAX_CONDITION_DEPTH`](super::MAX_CONDITION_DEPTH) before the stack can grow with
//! the input; the whole tree is then checked by [`Condition::validate`].

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::time::Duration;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use super::args::{Arg, Args, bind, unbind};
use super::expr::{self, ExprErrorKind};
use super::table::{Builtin, Compat, ConditionId, Param, ParamKind};
use super::{Condition, MAX_CONDITION_DEPTH, Speaker, TextPattern};
use crate::{DoneSequence, Role};

// ---- Serialize ---------------------------------------------------------------------

impl Serialize for Condition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.canonical_name())?;
        match self {
            Condition::All(children) | Condition::Any(children) => {
                map.serialize_entry("of", children)?;
            }
            Condition::Not(child) => map.serialize_entry("of", child)?,
            builtin => {
                // The values the text form shows, each under its option's name.
                let row = builtin.id().row();
                for (i, arg) in unbind(builtin).unwrap_or_default().given() {
                    write_arg(&mut map, row.params[i].key, arg)?;
                }
            }
        }
        map.end()
    }
}

/// One value under its option's name, in the object form. A duration is whole
/// `seconds` when it is, else `millis` (numbers read everywhere, TOML included).
fn write_arg<M: SerializeMap>(
    map: &mut M,
    key: &'static str,
    arg: &Arg<'_>,
) -> Result<(), M::Error> {
    match arg {
        Arg::Sequence(seq) => map.serialize_entry(key, &**seq),
        Arg::Pattern(pattern) => map.serialize_entry(key, pattern.as_str()),
        Arg::Count(n) => map.serialize_entry(key, n),
        Arg::Float(x) => map.serialize_entry(key, x),
        Arg::Duration(limit) if limit.subsec_nanos() == 0 => {
            map.serialize_entry("seconds", &limit.as_secs())
        }
        Arg::Duration(limit) => {
            let millis = u64::try_from(limit.as_millis()).map_err(|_| {
                serde::ser::Error::custom("timeout longer than u64::MAX milliseconds")
            })?;
            map.serialize_entry("millis", &millis)
        }
        Arg::Bool(b) => map.serialize_entry(key, b),
        Arg::Name(name) => map.serialize_entry(key, &**name),
        Arg::Word(word) => map.serialize_entry(key, word),
        Arg::Speakers(speakers) => {
            let texts: Vec<String> = speakers.iter().map(ToString::to_string).collect();
            map.serialize_entry(key, &texts)
        }
        Arg::Names(names) => map.serialize_entry(key, &**names),
        Arg::Json(json) => map.serialize_entry(key, &**json),
    }
}

// ---- Deserialize -------------------------------------------------------------------

thread_local! {
    /// How many `Condition::deserialize` calls are open on this thread.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// One open `Condition::deserialize` call; closes it when dropped (on errors and
/// unwinding too).
struct Nesting;

impl Nesting {
    /// Opens a call; `Ok(true)` for the outermost one. Refuses more levels than a valid
    /// tree can have (a built-in under `MAX_CONDITION_DEPTH` combinators).
    fn enter() -> Result<(Nesting, bool), String> {
        DEPTH.with(|depth| {
            let open = depth.get();
            if open > MAX_CONDITION_DEPTH {
                return Err(format!(
                    "stop conditions are nested more than {MAX_CONDITION_DEPTH} levels deep, \
                     the limit is {MAX_CONDITION_DEPTH}"
                ));
            }
            depth.set(open + 1);
            Ok((Nesting, open == 0))
        })
    }
}

impl Drop for Nesting {
    fn drop(&mut self) {
        DEPTH.with(|depth| depth.set(depth.get().saturating_sub(1)));
    }
}

impl<'de> Deserialize<'de> for Condition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Condition, D::Error> {
        let (nesting, outermost) = Nesting::enter().map_err(de::Error::custom)?;
        // One regex scope for the tree (joined by its strings' expressions).
        let condition = crate::text::scoped(|| deserializer.deserialize_any(ConditionVisitor))?;
        drop(nesting);
        if outermost {
            // Node count, and the height of trees that strings added to.
            condition.validate().map_err(de::Error::custom)?;
        }
        Ok(condition)
    }
}

struct ConditionVisitor;

impl<'de> Visitor<'de> for ConditionVisitor {
    type Value = Condition;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a stop condition: an expression such as \"tool(submit) | max_turns(10)\", \
             a list of conditions (any of them), or an object such as \
             {\"type\": \"max_turns\", \"turns\": 10}",
        )
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Condition, E> {
        Condition::parse(text).map_err(E::custom)
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Condition, S::Error> {
        let mut children = Vec::new();
        while let Some(child) = seq.next_element::<Condition>()? {
            children.push(child);
        }
        Ok(Condition::Any(children))
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Condition, M::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Err(de::Error::custom(
                "expected a stop condition object with a \"type\" field, found an empty map",
            ));
        };
        match first.as_str() {
            "type" => {
                let tag: String = map.next_value()?;
                let tag = known_tag(&tag).map_err(de::Error::custom)?;
                from_fields(tag, de::value::MapAccessDeserializer::new(map))
            }
            "all" | "any" | "not" => {
                let condition = match first.as_str() {
                    "all" => Condition::All(map.next_value()?),
                    "any" => Condition::Any(map.next_value()?),
                    _ => Condition::Not(Box::new(map.next_value()?)),
                };
                if let Some(other) = map.next_key::<String>()? {
                    return Err(de::Error::custom(format_args!(
                        "the shorthand {{\"{first}\": ...}} takes no other field, found \"{other}\""
                    )));
                }
                Ok(condition)
            }
            _ => {
                // The tag comes later: buffer the fields as JSON values.
                let mut fields = serde_json::Map::new();
                let mut tag = None;
                let mut key = Some(first);
                while let Some(k) = key {
                    if k == "type" {
                        let t: String = map.next_value()?;
                        tag = Some(known_tag(&t).map_err(de::Error::custom)?);
                    } else {
                        let value: serde_json::Value = map.next_value()?;
                        fields.insert(k, value);
                    }
                    key = map.next_key::<String>()?;
                }
                let Some(tag) = tag else {
                    let keys: Vec<&str> = fields.keys().map(String::as_str).collect();
                    return Err(de::Error::custom(format_args!(
                        "missing field `type` in a stop condition object (found {}; \
                         e.g. {{\"type\": \"max_turns\", \"turns\": 10}})",
                        keys.join(", ")
                    )));
                };
                from_fields(tag, serde_json::Value::Object(fields)).map_err(de::Error::custom)
            }
        }
    }
}

/// The condition a `type` tag names (canonical name or alias).
fn known_tag(tag: &str) -> Result<&'static Builtin, String> {
    expr::builtin(tag).ok_or_else(|| {
        let names = expr::BUILTINS
            .iter()
            .flat_map(|b| std::iter::once(b.name).chain(b.aliases.iter().copied()));
        let hint = expr::closest(tag, names)
            .map(|s| format!("did you mean \"{s}\"? "))
            .unwrap_or_default();
        format!(
            "unknown stop condition type \"{tag}\" ({hint}known types: {})",
            expr::known_conditions()
        )
    })
}

/// Deserializes the fields of a condition of type `b` (everything but the tag) from
/// `fields`: each field is read as its option's kind straight from the format (so
/// errors keep the format's positions), then the values are bound by the one binder
/// the text form uses.
fn from_fields<'de, D: Deserializer<'de>>(
    b: &'static Builtin,
    fields: D,
) -> Result<Condition, D::Error> {
    match b.id {
        ConditionId::All => Ok(Condition::All(
            helper::<OfSpec<Vec<Condition>>, D>(fields)?.of,
        )),
        ConditionId::Any => Ok(Condition::Any(
            helper::<OfSpec<Vec<Condition>>, D>(fields)?.of,
        )),
        ConditionId::Not => Ok(Condition::Not(
            helper::<OfSpec<Box<Condition>>, D>(fields)?.of,
        )),
        _ => fields.deserialize_map(FieldsVisitor { b }),
    }
}

fn helper<'de, T: Deserialize<'de>, D: Deserializer<'de>>(fields: D) -> Result<T, D::Error> {
    T::deserialize(fields)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(bound = "T: DeserializeOwned")]
struct OfSpec<T> {
    of: T,
}

/// Reads the fields of a built-in's object form into its values, and binds them.
struct FieldsVisitor {
    b: &'static Builtin,
}

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = Condition;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the fields of a \"{}\" condition", self.b.name)
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Condition, M::Error> {
        let b = self.b;
        let mut args = Args::default();
        // The peers' shapes, applied once every field is read.
        let mut compat: Vec<(Compat, u64)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if let Some(index) = b
                .params
                .iter()
                .position(|p| p.key == key || p.aliases.contains(&key.as_str()))
            {
                if args.get(index).is_some() {
                    return Err(de::Error::custom(format_args!(
                        "duplicate field `{}`",
                        b.params[index].key
                    )));
                }
                if let Some(value) = map.next_value_seed(ArgSeed(&b.params[index]))? {
                    args.set(index, value);
                }
            } else if let Some(&c) = b.compat.iter().find(|c| compat_key(**c) == key) {
                compat.push((c, map.next_value()?));
            } else {
                return Err(unknown_field(b, &key));
            }
        }
        for (c, n) in compat {
            apply(b, &mut args, c, n).map_err(de::Error::custom)?;
        }
        bind(b, &args).map_err(|e| match e.kind {
            ExprErrorKind::MissingArgument { argument, .. } => missing(b, argument),
            kind => de::Error::custom(format_args!("invalid \"{}\" condition: {kind}", b.name)),
        })
    }
}

/// serde's "unknown field" message, listing the row's fields.
fn unknown_field<E: de::Error>(b: &Builtin, key: &str) -> E {
    let names: Vec<String> = b
        .params
        .iter()
        .map(|p| p.key)
        .chain(b.compat.iter().map(|c| compat_key(*c)))
        .map(str::to_owned)
        .collect();
    if names.is_empty() {
        return E::custom(format_args!("unknown field `{key}`, there are no fields"));
    }
    E::custom(format_args!(
        "unknown field `{key}`, expected {}",
        one_of(names.iter().map(String::as_str))
    ))
}

/// What serde says it expected: `` `a` ``, `` `a` or `b` ``, `` one of `a`, `b`, `c` ``.
fn one_of<'s>(names: impl ExactSizeIterator<Item = &'s str>) -> String {
    let n = names.len();
    let quoted: Vec<String> = names.map(|k| format!("`{k}`")).collect();
    match n {
        1 | 2 => quoted.join(" or "),
        _ => format!("one of {}", quoted.join(", ")),
    }
}

/// A required option that is missing; a timeout names its three spellings.
fn missing<E: de::Error>(b: &Builtin, argument: &'static str) -> E {
    if b.id == ConditionId::Timeout {
        return E::custom(
            "a timeout needs one of 'seconds', 'millis' or 'limit' (e.g. {\"type\": \"timeout\", \"seconds\": 300})",
        );
    }
    E::missing_field(argument)
}

const fn compat_key(c: Compat) -> &'static str {
    match c {
        Compat::AwakenLimit { key, .. } | Compat::DurationUnit { key, .. } => key,
        Compat::LoopWindow => "window",
    }
}

/// A peer's field into the options it stands for.
fn apply(b: &Builtin, args: &mut Args<'_>, c: Compat, n: u64) -> Result<(), String> {
    let index = |name: &str| b.params.iter().position(|p| p.key == name).unwrap_or(0);
    match c {
        Compat::AwakenLimit { key, into } => {
            let i = index(into);
            if args.get(i).is_some() {
                return Err(format!("give '{into}' or awaken's '{key}', not both"));
            }
            if n == 0 {
                return Err(format!(
                    "'{key}: 0' means \"disabled\" in awaken; doneseq refuses it rather than read \
                     it as a limit that fires at once (leave the condition out to disable it)"
                ));
            }
            args.set(i, Arg::Count(n));
        }
        Compat::DurationUnit { millis, into, .. } => {
            let i = index(into);
            if args.get(i).is_some() {
                return Err(
                    "a timeout takes only one of 'seconds', 'millis' and 'limit'".to_owned(),
                );
            }
            let ms = n
                .checked_mul(millis)
                .ok_or("too long (the limit is u64::MAX milliseconds)")?;
            args.set(i, Arg::Duration(Duration::from_millis(ms)));
        }
        Compat::LoopWindow => {
            let taken = ["period", "repeats", "over"]
                .iter()
                .any(|k| args.get(index(k)).is_some());
            if taken {
                return Err(
                    "'window' (awaken's form: period=1, repeats=window, over=texts) cannot \
                     be combined with 'period', 'repeats' or 'over'; write those three instead"
                        .to_owned(),
                );
            }
            if n < 2 {
                return Err(format!(
                    "loop detection window {n}: awaken disables loop detection below 2; \
                     doneseq refuses it rather than drop the condition silently (remove it, or \
                     use a window of at least 2)"
                ));
            }
            if n > u64::from(super::MAX_LOOP_REPEATS) {
                return Err(format!(
                    "loop detection window {n} is over the limit of {}",
                    super::MAX_LOOP_REPEATS
                ));
            }
            args.set(index("period"), Arg::Count(1));
            args.set(index("repeats"), Arg::Count(n));
            args.set(index("over"), Arg::Word("texts"));
        }
    }
    Ok(())
}

/// Reads one option's value as its kind; `None` for a JSON `null` (left out).
struct ArgSeed(&'static Param);

impl<'de> de::DeserializeSeed<'de> for ArgSeed {
    type Value = Option<Arg<'static>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Arg<'static>>, D::Error> {
        let param = self.0;
        let key = param.key;
        Ok(Some(match param.kind {
            ParamKind::Sequence => Arg::Sequence(Cow::Owned(DoneSequence::deserialize(d)?)),
            ParamKind::Pattern => {
                let text = String::deserialize(d)?;
                let pattern = TextPattern::new(&text).map_err(|e| {
                    let kind = ExprErrorKind::InvalidPattern(e.kind().clone());
                    de::Error::custom(format_args!(
                        "invalid '{key}' {text:?} at {}..{}: {kind}",
                        e.span().start,
                        e.span().end
                    ))
                })?;
                Arg::Pattern(Cow::Owned(pattern))
            }
            ParamKind::Count => Arg::Count(u64::deserialize(d)?),
            ParamKind::Float => Arg::Float(f64::deserialize(d)?),
            ParamKind::Duration => {
                let text = String::deserialize(d)?;
                let limit = expr::parse_duration(&text).map_err(|reason| {
                    de::Error::custom(format_args!(
                        "invalid duration {text:?} for '{key}': {reason}"
                    ))
                })?;
                Arg::Duration(limit)
            }
            ParamKind::Bool => Arg::Bool(bool::deserialize(d)?),
            ParamKind::Name => Arg::Name(Cow::Owned(String::deserialize(d)?)),
            ParamKind::Word(words) => {
                let text = String::deserialize(d)?;
                let word = words.iter().find(|w| **w == text).ok_or_else(|| {
                    de::Error::custom(format_args!(
                        "unknown variant `{text}`, expected {}",
                        one_of(words.iter().copied())
                    ))
                })?;
                Arg::Word(word)
            }
            ParamKind::Speakers => {
                let texts = OneOrMany::deserialize(d)?.into_vec();
                let speakers = texts
                    .into_iter()
                    .map(|t| speaker(&t))
                    .collect::<Result<Vec<_>, String>>()
                    .map_err(de::Error::custom)?;
                Arg::Speakers(Cow::Owned(speakers))
            }
            ParamKind::Names => Arg::Names(Cow::Owned(OneOrMany::deserialize(d)?.into_vec())),
            ParamKind::Json | ParamKind::JsonObject => {
                let value = serde_json::Value::deserialize(d)?;
                if value.is_null() {
                    return Ok(None);
                }
                Arg::Json(Cow::Owned(value))
            }
        }))
    }
}

/// A list, or one item alone (a list of one).
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    Many(Vec<String>),
    One(String),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::Many(items) => items,
            OneOrMany::One(item) => vec![item],
        }
    }
}

/// A speaker as text: a role name, or `@responder`.
fn speaker(text: &str) -> Result<Speaker, String> {
    if let Some(name) = text.strip_prefix('@') {
        if name.is_empty() {
            return Err("expected a responder name after '@', found none".to_owned());
        }
        return Ok(Speaker::Responder(name.to_owned()));
    }
    text.parse::<Role>()
        .map(Speaker::Role)
        .map_err(|e| format!("{e}, or @responder for a responder"))
}
