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

use std::cell::Cell;
use std::fmt;
use std::time::Duration;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use super::expr;
use super::table::ConditionId;
use super::{
    Condition, ConfidenceMet, CustomCondition, LoopDetection, LoopOver, MAX_CONDITION_DEPTH,
    RewardThreshold, Speaker, TextMention, TextPattern, TokenBudget, ToolCalled, ToolPhase,
};
use crate::{DoneSequence, Role};

// ---- Serialize ---------------------------------------------------------------------

impl Serialize for Condition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.canonical_name())?;
        match self {
            Condition::Sequence(seq) => map.serialize_entry("sequence", seq)?,
            Condition::Final
            | Condition::DoneSignal
            | Condition::NoToolCalls
            | Condition::SingleRound
            | Condition::Cancelled => {}
            Condition::Response(from) | Condition::NoResponse(from) => {
                let from: Vec<String> = from.iter().map(ToString::to_string).collect();
                map.serialize_entry("from", &from)?;
            }
            Condition::MaxTurns(n) => map.serialize_entry("turns", n)?,
            Condition::Tokens(budget) => {
                entry_opt(&mut map, "total", budget.total.as_ref())?;
                entry_opt(&mut map, "input", budget.input.as_ref())?;
                entry_opt(&mut map, "output", budget.output.as_ref())?;
            }
            Condition::Timeout(limit) => {
                if limit.subsec_nanos() == 0 {
                    map.serialize_entry("seconds", &limit.as_secs())?;
                } else {
                    let millis = u64::try_from(limit.as_millis()).map_err(|_| {
                        serde::ser::Error::custom("timeout longer than u64::MAX milliseconds")
                    })?;
                    map.serialize_entry("millis", &millis)?;
                }
            }
            Condition::ConsecutiveErrors(n) => map.serialize_entry("max", n)?,
            Condition::Tool(tool) => {
                entry_opt(&mut map, "name", tool.name.as_ref())?;
                if tool.phase != ToolPhase::default() {
                    map.serialize_entry("when", expr::phase_word(tool.phase))?;
                }
                entry_opt(&mut map, "args", tool.args.as_ref())?;
            }
            Condition::Text(text) => {
                map.serialize_entry("pattern", text.pattern.as_str())?;
                if !text.from.is_empty() {
                    let from: Vec<String> = text.from.iter().map(ToString::to_string).collect();
                    map.serialize_entry("from", &from)?;
                }
            }
            Condition::Confidence(c) => {
                let default = ConfidenceMet::default();
                map.serialize_entry("threshold", &c.threshold)?;
                if c.min_steps != default.min_steps {
                    map.serialize_entry("min_steps", &c.min_steps)?;
                }
                if c.key != default.key {
                    map.serialize_entry("key", &c.key)?;
                }
                if c.fallback_final != default.fallback_final {
                    map.serialize_entry("fallback_final", &c.fallback_final)?;
                }
            }
            Condition::Reward(r) => {
                let default = RewardThreshold::default();
                map.serialize_entry("threshold", &r.threshold)?;
                if r.negative_streak != default.negative_streak {
                    map.serialize_entry("negative_streak", &r.negative_streak)?;
                }
                if r.require_final != default.require_final {
                    map.serialize_entry("require_final", &r.require_final)?;
                }
            }
            Condition::Loop(l) => {
                let default = LoopDetection::default();
                if l.period != default.period {
                    map.serialize_entry("period", &l.period)?;
                }
                if l.repeats != default.repeats {
                    map.serialize_entry("repeats", &l.repeats)?;
                }
                if l.over != default.over {
                    map.serialize_entry("over", expr::over_word(l.over))?;
                }
                if !l.exempt.is_empty() {
                    map.serialize_entry("exempt", &l.exempt)?;
                }
            }
            Condition::Custom(custom) => {
                map.serialize_entry("name", &custom.name)?;
                if !custom.config.is_null() {
                    map.serialize_entry("config", &custom.config)?;
                }
            }
            Condition::All(children) | Condition::Any(children) => {
                map.serialize_entry("of", children)?;
            }
            Condition::Not(child) => map.serialize_entry("of", child)?,
        }
        map.end()
    }
}

fn entry_opt<M: SerializeMap, T: Serialize + ?Sized>(
    map: &mut M,
    key: &'static str,
    value: Option<&T>,
) -> Result<(), M::Error> {
    match value {
        Some(value) => map.serialize_entry(key, value),
        None => Ok(()),
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
        let condition = crate::pattern::scoped(|| deserializer.deserialize_any(ConditionVisitor))?;
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
fn known_tag(tag: &str) -> Result<&'static expr::Builtin, String> {
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
/// `fields`, with the helper struct of its type.
fn from_fields<'de, D: Deserializer<'de>>(
    b: &'static expr::Builtin,
    fields: D,
) -> Result<Condition, D::Error> {
    let condition = match b.id {
        ConditionId::Seq => Condition::Sequence(helper::<SeqSpec, D>(fields)?.sequence),
        ConditionId::Final => unit(fields, Condition::Final)?,
        ConditionId::DoneSignal => unit(fields, Condition::DoneSignal)?,
        ConditionId::NoToolCalls => unit(fields, Condition::NoToolCalls)?,
        ConditionId::Cancelled => unit(fields, Condition::Cancelled)?,
        ConditionId::SingleRound => unit(fields, Condition::SingleRound)?,
        ConditionId::Response => {
            let spec: ResponseSpec = helper(fields)?;
            Condition::Response(spec.from.into_iter().map(|s| s.0).collect())
        }
        ConditionId::NoResponse => {
            let spec: ResponseSpec = helper(fields)?;
            Condition::NoResponse(spec.from.into_iter().map(|s| s.0).collect())
        }
        ConditionId::MaxTurns => Condition::MaxTurns(helper::<TurnsSpec, D>(fields)?.turns()?),
        ConditionId::ConsecutiveErrors => {
            Condition::ConsecutiveErrors(helper::<ErrorsSpec, D>(fields)?.max)
        }
        ConditionId::Tokens => {
            let spec: TokensSpec = helper(fields)?;
            Condition::Tokens(TokenBudget {
                total: spec.total()?,
                input: spec.input,
                output: spec.output,
            })
        }
        ConditionId::Timeout => Condition::Timeout(helper::<TimeoutSpec, D>(fields)?.limit()?),
        ConditionId::Tool => {
            let spec: ToolSpec = helper(fields)?;
            Condition::Tool(ToolCalled {
                name: spec.name,
                phase: spec.when.map_or(ToolPhase::default(), PhaseWord::phase),
                args: spec.args,
            })
        }
        ConditionId::Text => {
            let spec: TextSpec = helper(fields)?;
            let pattern = TextPattern::new(&spec.pattern).map_err(|e| {
                let kind = expr::ExprErrorKind::InvalidPattern(e.kind().clone());
                de::Error::custom(format_args!(
                    "invalid 'pattern' {:?} at {}..{}: {kind}",
                    spec.pattern,
                    e.span().start,
                    e.span().end
                ))
            })?;
            let from = spec.from.into_iter().map(|s| s.0).collect();
            Condition::Text(TextMention { pattern, from })
        }
        ConditionId::Confidence => {
            let spec: ConfidenceSpec = helper(fields)?;
            let default = ConfidenceMet::default();
            Condition::Confidence(ConfidenceMet {
                threshold: spec.threshold.unwrap_or(default.threshold),
                min_steps: spec.min_steps.unwrap_or(default.min_steps),
                key: spec.key.unwrap_or(default.key),
                fallback_final: spec.fallback_final.unwrap_or(default.fallback_final),
            })
        }
        ConditionId::Reward => {
            let spec: RewardSpec = helper(fields)?;
            let default = RewardThreshold::default();
            Condition::Reward(RewardThreshold {
                threshold: spec.threshold.unwrap_or(default.threshold),
                negative_streak: spec.negative_streak.unwrap_or(default.negative_streak),
                require_final: spec.require_final.unwrap_or(default.require_final),
            })
        }
        ConditionId::Loop => Condition::Loop(helper::<LoopSpec, D>(fields)?.detection()?),
        ConditionId::Custom => {
            let spec: CustomSpec = helper(fields)?;
            Condition::Custom(CustomCondition {
                name: spec.name,
                config: spec.config,
            })
        }
        ConditionId::All => Condition::All(helper::<OfSpec<Vec<Condition>>, D>(fields)?.of),
        ConditionId::Any => Condition::Any(helper::<OfSpec<Vec<Condition>>, D>(fields)?.of),
        ConditionId::Not => Condition::Not(helper::<OfSpec<Box<Condition>>, D>(fields)?.of),
    };
    // The checks the expression parser makes on values (ranges, empty budgets, empty
    // names, finite thresholds, args that are an object).
    match expr::fault(&condition) {
        None => Ok(condition),
        Some(kind) => Err(de::Error::custom(format_args!(
            "invalid \"{}\" condition: {kind}",
            b.name
        ))),
    }
}

fn helper<'de, T: Deserialize<'de>, D: Deserializer<'de>>(fields: D) -> Result<T, D::Error> {
    T::deserialize(fields)
}

/// A condition without options: its fields must be empty.
fn unit<'de, D: Deserializer<'de>>(fields: D, condition: Condition) -> Result<Condition, D::Error> {
    let Empty {} = Empty::deserialize(fields)?;
    Ok(condition)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SeqSpec {
    /// DSL text, or Langroid's object form.
    sequence: DoneSequence,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnsSpec {
    #[serde(default)]
    turns: Option<u64>,
    /// awaken's name (`max_rounds`), where 0 means "disabled".
    #[serde(default)]
    rounds: Option<u64>,
}

impl TurnsSpec {
    fn turns<E: de::Error>(&self) -> Result<u64, E> {
        match (self.turns, self.rounds) {
            (Some(n), None) => Ok(n),
            (None, Some(n)) => awaken_limit("rounds", n),
            (None, None) => Err(E::missing_field("turns")),
            (Some(_), Some(_)) => Err(E::custom("give 'turns' or awaken's 'rounds', not both")),
        }
    }
}

/// A limit under awaken's field name: awaken reads 0 as "disabled", which no
/// condition means, so 0 is refused rather than read as a limit that fires at once.
fn awaken_limit<E: de::Error>(field: &str, n: u64) -> Result<u64, E> {
    if n == 0 {
        return Err(E::custom(format_args!(
            "'{field}: 0' means \"disabled\" in awaken; doneseq refuses it rather than read \
             it as a limit that fires at once (leave the condition out to disable it)"
        )));
    }
    Ok(n)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ErrorsSpec {
    max: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokensSpec {
    #[serde(default)]
    total: Option<u64>,
    /// awaken's name (`token_budget`), where 0 means "disabled".
    #[serde(default)]
    max_total: Option<u64>,
    #[serde(default)]
    input: Option<u64>,
    #[serde(default)]
    output: Option<u64>,
}

impl TokensSpec {
    fn total<E: de::Error>(&self) -> Result<Option<u64>, E> {
        match (self.total, self.max_total) {
            (total, None) => Ok(total),
            (None, Some(n)) => awaken_limit("max_total", n).map(Some),
            (Some(_), Some(_)) => Err(E::custom("give 'total' or awaken's 'max_total', not both")),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TimeoutSpec {
    /// Whole seconds (awaken's field, and what a whole-second timeout serializes as).
    #[serde(default)]
    seconds: Option<u64>,
    /// Milliseconds (what any other timeout serializes as).
    #[serde(default)]
    millis: Option<u64>,
    /// A duration as the language writes it: `"5m"`, `"1500ms"`.
    #[serde(default)]
    limit: Option<String>,
}

impl TimeoutSpec {
    fn limit<E: de::Error>(&self) -> Result<Duration, E> {
        match (self.seconds, self.millis, &self.limit) {
            (Some(s), None, None) => Ok(Duration::from_secs(s)),
            (None, Some(ms), None) => Ok(Duration::from_millis(ms)),
            (None, None, Some(text)) => expr::parse_duration(text).map_err(|reason| {
                E::custom(format_args!(
                    "invalid duration {text:?} for 'limit': {reason}"
                ))
            }),
            (None, None, None) => Err(E::custom(
                "a timeout needs one of 'seconds', 'millis' or 'limit' (e.g. {\"type\": \"timeout\", \"seconds\": 300})",
            )),
            _ => Err(E::custom(
                "a timeout takes only one of 'seconds', 'millis' and 'limit'",
            )),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolSpec {
    /// awaken's `stop_on_tool` calls it `tool_name`.
    #[serde(default, alias = "tool_name")]
    name: Option<String>,
    #[serde(default)]
    when: Option<PhaseWord>,
    /// `null` is the same as leaving it out.
    #[serde(default)]
    args: Option<serde_json::Value>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum PhaseWord {
    Requested,
    Executed,
}

impl PhaseWord {
    fn phase(self) -> ToolPhase {
        match self {
            PhaseWord::Requested => ToolPhase::Requested,
            PhaseWord::Executed => ToolPhase::Executed,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextSpec {
    pattern: String,
    #[serde(default)]
    from: Vec<SpeakerSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResponseSpec {
    /// Langroid's option holds roles; a list or one speaker.
    #[serde(alias = "roles", deserialize_with = "one_or_many")]
    from: Vec<SpeakerSpec>,
}

/// A list, or one item alone.
fn one_or_many<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<SpeakerSpec>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        Many(Vec<String>),
        One(String),
    }
    let items = match OneOrMany::deserialize(deserializer)? {
        OneOrMany::Many(items) => items,
        OneOrMany::One(item) => vec![item],
    };
    items
        .into_iter()
        .map(|text| SpeakerSpec::deserialize(de::value::StringDeserializer::<D::Error>::new(text)))
        .collect()
}

/// A speaker as text: a role name, or `@responder`.
struct SpeakerSpec(Speaker);

impl<'de> Deserialize<'de> for SpeakerSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SpeakerSpec, D::Error> {
        let text: String = Deserialize::deserialize(deserializer)?;
        if let Some(name) = text.strip_prefix('@') {
            if name.is_empty() {
                return Err(de::Error::custom(
                    "expected a responder name after '@', found none",
                ));
            }
            return Ok(SpeakerSpec(Speaker::Responder(name.to_owned())));
        }
        text.parse::<Role>()
            .map(|role| SpeakerSpec(Speaker::Role(role)))
            .map_err(|e| de::Error::custom(format_args!("{e}, or @responder for a responder")))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfidenceSpec {
    /// rlm-code: `confidence_threshold`.
    #[serde(default, alias = "confidence_threshold")]
    threshold: Option<f64>,
    /// rlm-code: `min_steps_before_termination`.
    #[serde(default, alias = "min_steps_before_termination")]
    min_steps: Option<u64>,
    /// rlm-code: `confidence_key`.
    #[serde(default, alias = "confidence_key")]
    key: Option<String>,
    /// rlm-code: `fallback_to_final_pattern`.
    #[serde(default, alias = "fallback_to_final_pattern")]
    fallback_final: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RewardSpec {
    /// rlm-code: `min_reward_threshold`.
    #[serde(default, alias = "min_reward_threshold")]
    threshold: Option<f64>,
    /// rlm-code: `max_negative_streak`.
    #[serde(default, alias = "max_negative_streak")]
    negative_streak: Option<u64>,
    /// rlm-code: `require_final_action`.
    #[serde(default, alias = "require_final_action")]
    require_final: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoopSpec {
    #[serde(default)]
    period: Option<u32>,
    #[serde(default)]
    repeats: Option<u32>,
    #[serde(default)]
    over: Option<OverWord>,
    #[serde(default)]
    exempt: Option<Vec<String>>,
    /// awaken's `loop_detection`: the last `window` texts are identical.
    #[serde(default)]
    window: Option<u64>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum OverWord {
    Both,
    Calls,
    Texts,
}

impl LoopSpec {
    fn detection<E: de::Error>(self) -> Result<LoopDetection, E> {
        let default = LoopDetection::default();
        let over = match self.over {
            None => default.over,
            Some(OverWord::Both) => LoopOver::Both,
            Some(OverWord::Calls) => LoopOver::Calls,
            Some(OverWord::Texts) => LoopOver::Texts,
        };
        let Some(window) = self.window else {
            return Ok(LoopDetection {
                period: self.period.unwrap_or(default.period),
                repeats: self.repeats.unwrap_or(default.repeats),
                over,
                exempt: self.exempt.unwrap_or_default(),
            });
        };
        if self.period.is_some() || self.repeats.is_some() || self.over.is_some() {
            return Err(E::custom(
                "'window' (awaken's form: period=1, repeats=window, over=texts) cannot be \
                 combined with 'period', 'repeats' or 'over'; write those three instead",
            ));
        }
        if window < 2 {
            return Err(E::custom(format_args!(
                "loop detection window {window}: awaken disables loop detection below 2; \
                 doneseq refuses it rather than drop the condition silently (remove it, or \
                 use a window of at least 2)"
            )));
        }
        let repeats = u32::try_from(window)
            .ok()
            .filter(|w| *w <= super::MAX_LOOP_REPEATS)
            .ok_or_else(|| {
                E::custom(format_args!(
                    "loop detection window {window} is over the limit of {}",
                    super::MAX_LOOP_REPEATS
                ))
            })?;
        Ok(LoopDetection {
            period: 1,
            repeats,
            over: LoopOver::Texts,
            exempt: self.exempt.unwrap_or_default(),
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CustomSpec {
    name: String,
    /// Absent or `null`: none.
    #[serde(default)]
    config: serde_json::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(bound = "T: DeserializeOwned")]
struct OfSpec<T> {
    of: T,
}
