//! proptest strategies for stop conditions: arbitrary *valid* [`Condition`] trees
//! (every one passes `Condition::validate`), for any test that needs them.
//!
//! - [`condition`]: any valid tree, JSON values with `null` in them included.
//! - [`toml_condition`]: the same without `null` anywhere (TOML cannot hold it).
//!
//! Strings are chosen to stress the printers: quotes of both kinds, backslashes
//! (`\bDONE\b`, a trailing one), spaces, `@`, non-ASCII.

#![allow(dead_code)]

use std::time::Duration;

use doneseq::DoneSequence;
use doneseq::Role;
use doneseq::stop::{
    Condition, ConfidenceMet, CustomCondition, LoopDetection, LoopOver, MAX_LOOP_PERIOD,
    MAX_LOOP_REPEATS, RewardThreshold, Speaker, TextMention, TextPattern, TokenBudget, ToolCalled,
    ToolPhase,
};
use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::Value;

/// Done sequences whose canonical text has quotes, backslashes, brackets and names.
pub(crate) const SEQUENCES: &[&str] = &[
    "T[calculator], A",
    "calc: T[calc], A@Database & !E",
    "\"tool then agent\": T, A@\"Sub Task\"",
    "C[done,\\s*thanks], L",
    "\"a\\\"b\": T",
    "T[a\\]b]{2}, F",
    "C['x'] & !E, _",
    "C[\\bDONE\\b], N, U",
    "\"it's\": L & !C[a\"b]",
];

/// Regexes for `text(...)`: word boundaries, both quotes, escaped backslashes.
pub(crate) const PATTERNS: &[&str] = &[
    "\\bDONE\\b",
    "quit|bye",
    "a\"b",
    "it's",
    "both ' and \"",
    "\\\\",
    "x\\\\\\\\",
    "(?i)approved\\.",
    "caf\u{e9}",
    "\\\"",
    "[\\]]",
    " ",
];

/// A name: mostly a bare word, sometimes anything non-empty.
pub(crate) fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-zA-Z_][a-zA-Z0-9_.-]{0,10}",
        1 => "[a-z0-9 _\"'\\\\@\u{e9}.,()=-]{1,8}",
        1 => "true|false|1abc|@x|-x",
    ]
}

/// A count, zero included.
fn count() -> impl Strategy<Value = u64> {
    prop_oneof![0u64..=10, any::<u64>(), Just(u64::MAX)]
}

/// A finite `f64`: small, integral, huge, tiny, negative.
fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        (0u32..=100).prop_map(|n| f64::from(n) / 100.0),
        any::<f64>().prop_filter("finite", |x| x.is_finite()),
        Just(1.0),
        Just(-0.5),
        Just(1e300),
        Just(1e-300),
    ]
}

/// A whole number of milliseconds, often a whole number of hours, minutes or seconds.
fn duration() -> impl Strategy<Value = Duration> {
    prop_oneof![
        Just(Duration::ZERO),
        (1u64..=48).prop_map(|h| Duration::from_secs(h * 3600)),
        (1u64..=600).prop_map(|m| Duration::from_secs(m * 60)),
        (1u64..=100_000).prop_map(Duration::from_secs),
        (1u64..=10_000_000).prop_map(Duration::from_millis),
        (1u64..).prop_map(Duration::from_millis),
    ]
}

/// Any JSON value; `nulls: false` leaves `null` out everywhere.
pub(crate) fn json(nulls: bool) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        finite().prop_map(Value::from),
        "[a-z \"\\\\\n\u{e9}]{0,6}".prop_map(Value::String),
    ];
    let leaf = if nulls {
        prop_oneof![1 => Just(Value::Null), 6 => leaf].boxed()
    } else {
        leaf.boxed()
    };
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            json_object(inner),
        ]
    })
}

fn json_object(inner: impl Strategy<Value = Value>) -> impl Strategy<Value = Value> {
    vec(("[a-z_]{1,5}|[a-z \"]{1,4}", inner), 0..4)
        .prop_map(|entries| Value::Object(entries.into_iter().collect()))
}

fn speaker() -> impl Strategy<Value = Speaker> {
    prop_oneof![
        prop::sample::select(vec![Role::User, Role::Llm, Role::Agent, Role::System])
            .prop_map(Speaker::Role),
        name().prop_map(Speaker::Responder),
    ]
}

/// A valid built-in condition.
pub(crate) fn leaf(nulls: bool) -> impl Strategy<Value = Condition> {
    let sequence = prop::sample::select(SEQUENCES)
        .prop_map(|s| Condition::Sequence(DoneSequence::parse(s).expect("a valid sequence")));
    let tokens = (
        prop::option::of(count()),
        prop::option::of(count()),
        prop::option::of(count()),
    )
        .prop_filter("at least one limit", |(t, i, o)| {
            t.is_some() || i.is_some() || o.is_some()
        })
        .prop_map(|(total, input, output)| {
            Condition::Tokens(TokenBudget {
                total,
                input,
                output,
            })
        });
    let tool = (
        prop::option::of(name()),
        any::<bool>(),
        prop::option::of(json_object(json(nulls))),
    )
        .prop_map(|(name, executed, args)| {
            let phase = if executed {
                ToolPhase::Executed
            } else {
                ToolPhase::Requested
            };
            Condition::Tool(ToolCalled { name, phase, args })
        });
    let text = (prop::sample::select(PATTERNS), vec(speaker(), 0..3)).prop_map(|(p, from)| {
        let pattern = TextPattern::new(p).expect("a valid pattern");
        Condition::Text(TextMention { pattern, from })
    });
    let confidence = (finite(), count(), name(), any::<bool>()).prop_map(|(t, m, k, f)| {
        Condition::Confidence(ConfidenceMet {
            threshold: t,
            min_steps: m,
            key: k,
            fallback_final: f,
        })
    });
    let default_confidence = Just(Condition::Confidence(ConfidenceMet::default()));
    let reward = (finite(), count(), any::<bool>()).prop_map(|(t, n, f)| {
        Condition::Reward(RewardThreshold {
            threshold: t,
            negative_streak: n,
            require_final: f,
        })
    });
    let detection = (
        1..=MAX_LOOP_PERIOD,
        2..=MAX_LOOP_REPEATS,
        prop::sample::select(vec![LoopOver::Both, LoopOver::Calls, LoopOver::Texts]),
        vec(name(), 0..3),
    )
        .prop_map(|(period, repeats, over, exempt)| {
            Condition::Loop(LoopDetection {
                period,
                repeats,
                over,
                exempt,
            })
        });
    let config = if nulls {
        json(true).boxed()
    } else {
        json(false).boxed()
    };
    let custom = (name(), config)
        .prop_map(|(name, config)| Condition::Custom(CustomCondition { name, config }));
    prop_oneof![
        sequence,
        Just(Condition::Final),
        Just(Condition::DoneSignal),
        count().prop_map(Condition::MaxTurns),
        tokens,
        duration().prop_map(Condition::Timeout),
        count().prop_map(Condition::ConsecutiveErrors),
        tool,
        Just(Condition::NoToolCalls),
        text,
        confidence,
        default_confidence,
        reward,
        Just(Condition::Loop(LoopDetection::default())),
        detection,
        Just(Condition::Cancelled),
        custom,
    ]
}

/// Trees of built-ins under `all`, `any` and `not`, with combinators of zero, one and
/// many children, nested in every way.
fn tree(nulls: bool) -> impl Strategy<Value = Condition> {
    leaf(nulls).prop_recursive(5, 40, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..5).prop_map(Condition::All),
            vec(inner.clone(), 0..5).prop_map(Condition::Any),
            inner.prop_map(|c| !c),
        ]
    })
}

/// Any valid condition tree.
pub(crate) fn condition() -> impl Strategy<Value = Condition> {
    tree(true)
}

/// A valid condition tree that TOML can hold: no `null`.
pub(crate) fn toml_condition() -> impl Strategy<Value = Condition> {
    tree(false)
}
