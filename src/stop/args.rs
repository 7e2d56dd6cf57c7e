//! The one intermediate form between a built-in condition and its written forms: its
//! option values by the position of the option in its row of the table. The text
//! parser and the serde reader each read values into [`Args`] and [`bind`] them into a
//! [`Condition`]; the canonical printer and the serializer take them from [`unbind`]
//! and write each one in their syntax. So a condition's options are mapped to and
//! from its fields in one place, and checked by one validator ([`super::expr::fault`],
//! which [`bind`] runs).

use std::borrow::Cow;
use std::time::Duration;

use super::expr::{ExprErrorKind, fault};
use super::table::{Builtin, ConditionId, ParamKind};
use super::{
    Condition, ConfidenceMet, CustomCondition, LoopDetection, LoopOver, RewardThreshold, Speaker,
    TextMention, TextPattern, TokenBudget, ToolCalled, ToolPhase,
};
use crate::DoneSequence;

/// A typed option value: owned as a reader produced it, borrowed from a condition
/// by [`unbind`] (a condition built in Rust may hold a JSON value far deeper than
/// any reader allows, which a copy would recurse into).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Arg<'a> {
    Sequence(Cow<'a, DoneSequence>),
    Pattern(Cow<'a, TextPattern>),
    Count(u64),
    Float(f64),
    Duration(Duration),
    Bool(bool),
    Name(Cow<'a, str>),
    Word(&'static str),
    Speakers(Cow<'a, [Speaker]>),
    Names(Cow<'a, [String]>),
    Json(Cow<'a, serde_json::Value>),
}

/// A built-in's option values, by option index (the row's `params`); `None` where
/// the option was not given (or, from [`unbind`], is at its default).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Args<'a> {
    pub(crate) values: Vec<Option<Arg<'a>>>,
}

impl<'a> Args<'a> {
    pub(crate) fn get(&self, index: usize) -> Option<&Arg<'a>> {
        self.values.get(index)?.as_ref()
    }

    pub(crate) fn set(&mut self, index: usize, value: Arg<'a>) {
        if self.values.len() <= index {
            self.values.resize_with(index + 1, || None);
        }
        self.values[index] = Some(value);
    }

    /// The options given, with their index.
    pub(crate) fn given(&self) -> impl Iterator<Item = (usize, &Arg<'a>)> {
        self.values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_ref().map(|v| (i, v)))
    }

    fn count(&self, n: usize) -> Option<u64> {
        match self.get(n) {
            Some(Arg::Count(c)) => Some(*c),
            _ => None,
        }
    }

    fn float(&self, n: usize) -> Option<f64> {
        match self.get(n) {
            Some(Arg::Float(x)) => Some(*x),
            _ => None,
        }
    }

    fn flag(&self, n: usize) -> Option<bool> {
        match self.get(n) {
            Some(Arg::Bool(x)) => Some(*x),
            _ => None,
        }
    }

    fn name(&self, n: usize) -> Option<String> {
        match self.get(n) {
            Some(Arg::Name(s)) => Some(s.to_string()),
            _ => None,
        }
    }

    fn word(&self, n: usize) -> Option<&'static str> {
        match self.get(n) {
            Some(Arg::Word(w)) => Some(*w),
            _ => None,
        }
    }

    fn speakers(&self, n: usize) -> Option<Vec<Speaker>> {
        match self.get(n) {
            Some(Arg::Speakers(s)) => Some(s.to_vec()),
            _ => None,
        }
    }

    fn json(&self, n: usize) -> Option<serde_json::Value> {
        match self.get(n) {
            Some(Arg::Json(v)) if !v.is_null() => Some(v.as_ref().clone()),
            _ => None,
        }
    }
}

/// Why values do not make a condition: which option (by index), and what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BindError {
    /// The option at fault, when there is one (not for a missing option).
    pub(crate) option: Option<usize>,
    pub(crate) kind: ExprErrorKind,
}

/// The condition of row `b` with these values: defaults where an option is not
/// given, then the checks every condition passes (ranges, empty names and budgets,
/// finite thresholds, JSON that is an object or not too deep).
pub(crate) fn bind(b: &'static Builtin, args: &Args<'_>) -> Result<Condition, BindError> {
    let missing = |argument| BindError {
        option: None,
        kind: ExprErrorKind::MissingArgument {
            condition: b.name,
            argument,
        },
    };
    let condition = match b.id {
        ConditionId::Seq => match args.get(0) {
            Some(Arg::Sequence(seq)) => Condition::Sequence(seq.as_ref().clone()),
            _ => return Err(missing("sequence")),
        },
        ConditionId::Final => Condition::Final,
        ConditionId::DoneSignal => Condition::DoneSignal,
        ConditionId::NoToolCalls => Condition::NoToolCalls,
        ConditionId::Cancelled => Condition::Cancelled,
        ConditionId::SingleRound => Condition::SingleRound {
            llm_delegate: args.flag(0).unwrap_or(false),
        },
        ConditionId::Response => {
            Condition::Response(args.speakers(0).ok_or_else(|| missing("from"))?)
        }
        ConditionId::NoResponse => {
            Condition::NoResponse(args.speakers(0).ok_or_else(|| missing("from"))?)
        }
        ConditionId::MaxMessages => Condition::MaxMessages(super::MessageBudget {
            limit: args.count(0).ok_or_else(|| missing("messages"))?,
            events: args.flag(1).unwrap_or(false),
        }),
        ConditionId::StopMessage => Condition::StopMessage,
        ConditionId::Handoff => Condition::Handoff(match args.get(0) {
            Some(Arg::Names(names)) => names.to_vec(),
            _ => Vec::new(),
        }),
        ConditionId::MaxModelCalls => {
            Condition::MaxModelCalls(args.count(0).ok_or_else(|| missing("calls"))?)
        }
        ConditionId::MaxTurns => {
            Condition::MaxTurns(args.count(0).ok_or_else(|| missing("turns"))?)
        }
        ConditionId::ConsecutiveErrors => {
            Condition::ConsecutiveErrors(args.count(0).ok_or_else(|| missing("max"))?)
        }
        ConditionId::Tokens => Condition::Tokens(TokenBudget {
            total: args.count(0),
            input: args.count(1),
            output: args.count(2),
        }),
        ConditionId::Timeout => match args.get(0) {
            Some(Arg::Duration(d)) => Condition::Timeout(*d),
            _ => return Err(missing("limit")),
        },
        ConditionId::Tool => Condition::Tool(ToolCalled {
            name: args.name(0),
            phase: match args.word(1) {
                Some("executed") => ToolPhase::Executed,
                Some("finished") => ToolPhase::Finished,
                _ => ToolPhase::Requested,
            },
            args: args.json(2),
        }),
        ConditionId::Text => {
            let Some(Arg::Pattern(pattern)) = args.get(0) else {
                return Err(missing("pattern"));
            };
            Condition::Text(TextMention {
                pattern: pattern.as_ref().clone(),
                from: args.speakers(1).unwrap_or_default(),
            })
        }
        ConditionId::Confidence => {
            let default = ConfidenceMet::default();
            Condition::Confidence(ConfidenceMet {
                threshold: args.float(0).unwrap_or(default.threshold),
                min_steps: args.count(1).unwrap_or(default.min_steps),
                key: args.name(2).unwrap_or(default.key),
                fallback_final: args.flag(3).unwrap_or(default.fallback_final),
            })
        }
        ConditionId::Reward => {
            let default = RewardThreshold::default();
            Condition::Reward(RewardThreshold {
                threshold: args.float(0).unwrap_or(default.threshold),
                negative_streak: args.count(1).unwrap_or(default.negative_streak),
                require_final: args.flag(2).unwrap_or(default.require_final),
            })
        }
        ConditionId::Loop => {
            let default = LoopDetection::default();
            let bounded = |n: usize, fallback: u32, (min, max): (u32, u32)| {
                let Some(found) = args.count(n) else {
                    return Ok(fallback);
                };
                // The validator checks the range; a count past u32 is reported here,
                // as written.
                u32::try_from(found).map_err(|_| BindError {
                    option: Some(n),
                    kind: ExprErrorKind::OutOfRange {
                        option: b.params[n].key,
                        found,
                        min: u64::from(min),
                        max: u64::from(max),
                    },
                })
            };
            Condition::Loop(LoopDetection {
                period: bounded(0, default.period, (1, super::MAX_LOOP_PERIOD))?,
                repeats: bounded(1, default.repeats, (2, super::MAX_LOOP_REPEATS))?,
                over: match args.word(2) {
                    Some("calls") => LoopOver::Calls,
                    Some("texts") => LoopOver::Texts,
                    Some(_) | None => LoopOver::Both,
                },
                exempt: match args.get(3) {
                    Some(Arg::Names(names)) => names.to_vec(),
                    _ => Vec::new(),
                },
            })
        }
        ConditionId::Custom => Condition::Custom(CustomCondition {
            name: args.name(0).ok_or_else(|| missing("name"))?,
            config: args.json(1).unwrap_or(serde_json::Value::Null),
        }),
        ConditionId::All | ConditionId::Any | ConditionId::Not => {
            return Err(missing("condition"));
        }
    };
    match fault(&condition) {
        None => Ok(condition),
        Some(kind) => {
            let option = kind
                .option()
                .and_then(|key| b.params.iter().position(|p| p.key == key));
            Err(BindError { option, kind })
        }
    }
}

/// The values of a built-in condition: what its written forms show, defaults left
/// out (a threshold is always shown). `None` for a combinator.
pub(crate) fn unbind(c: &Condition) -> Option<Args<'_>> {
    let mut args = Args::default();
    let default_confidence = ConfidenceMet::default();
    let default_reward = RewardThreshold::default();
    let default_loop = LoopDetection::default();
    match c {
        Condition::All(_) | Condition::Any(_) | Condition::Not(_) => return None,
        Condition::Final
        | Condition::DoneSignal
        | Condition::NoToolCalls
        | Condition::Cancelled
        | Condition::StopMessage => {}
        Condition::SingleRound { llm_delegate } => {
            if *llm_delegate {
                args.set(0, Arg::Bool(true));
            }
        }
        Condition::MaxMessages(m) => {
            args.set(0, Arg::Count(m.limit));
            if m.events {
                args.set(1, Arg::Bool(true));
            }
        }
        Condition::Handoff(targets) => {
            if !targets.is_empty() {
                args.set(0, Arg::Names(Cow::Borrowed(targets)));
            }
        }
        Condition::Sequence(seq) => args.set(0, Arg::Sequence(Cow::Borrowed(seq))),
        Condition::MaxTurns(n) | Condition::MaxModelCalls(n) | Condition::ConsecutiveErrors(n) => {
            args.set(0, Arg::Count(*n));
        }
        Condition::Response(from) | Condition::NoResponse(from) => {
            args.set(0, Arg::Speakers(Cow::Borrowed(from)));
        }
        Condition::Tokens(b) => {
            for (i, limit) in [b.total, b.input, b.output].into_iter().enumerate() {
                if let Some(limit) = limit {
                    args.set(i, Arg::Count(limit));
                }
            }
        }
        Condition::Timeout(d) => args.set(0, Arg::Duration(*d)),
        Condition::Tool(t) => {
            if let Some(name) = &t.name {
                args.set(0, Arg::Name(Cow::Borrowed(name)));
            }
            if t.phase != ToolPhase::default() {
                args.set(1, Arg::Word(super::expr::phase_word(t.phase)));
            }
            if let Some(json) = &t.args {
                args.set(2, Arg::Json(Cow::Borrowed(json)));
            }
        }
        Condition::Text(t) => {
            args.set(0, Arg::Pattern(Cow::Borrowed(&t.pattern)));
            if !t.from.is_empty() {
                args.set(1, Arg::Speakers(Cow::Borrowed(&t.from)));
            }
        }
        Condition::Confidence(x) => {
            args.set(0, Arg::Float(x.threshold));
            if x.min_steps != default_confidence.min_steps {
                args.set(1, Arg::Count(x.min_steps));
            }
            if x.key != default_confidence.key {
                args.set(2, Arg::Name(Cow::Borrowed(&x.key)));
            }
            if x.fallback_final != default_confidence.fallback_final {
                args.set(3, Arg::Bool(x.fallback_final));
            }
        }
        Condition::Reward(r) => {
            args.set(0, Arg::Float(r.threshold));
            if r.negative_streak != default_reward.negative_streak {
                args.set(1, Arg::Count(r.negative_streak));
            }
            if r.require_final != default_reward.require_final {
                args.set(2, Arg::Bool(r.require_final));
            }
        }
        Condition::Loop(l) => {
            if l.period != default_loop.period {
                args.set(0, Arg::Count(u64::from(l.period)));
            }
            if l.repeats != default_loop.repeats {
                args.set(1, Arg::Count(u64::from(l.repeats)));
            }
            if l.over != default_loop.over {
                args.set(2, Arg::Word(super::expr::over_word(l.over)));
            }
            if !l.exempt.is_empty() {
                args.set(3, Arg::Names(Cow::Borrowed(&l.exempt)));
            }
        }
        Condition::Custom(custom) => {
            args.set(0, Arg::Name(Cow::Borrowed(&custom.name)));
            if !custom.config.is_null() {
                args.set(1, Arg::Json(Cow::Borrowed(&custom.config)));
            }
        }
    }
    Some(args)
}

/// Whether a value of this kind is written `key=value` even where it could be
/// positional: a JSON value reads better named (`config={...}`).
pub(crate) const fn always_keyed(kind: ParamKind) -> bool {
    matches!(kind, ParamKind::Json | ParamKind::JsonObject)
}
