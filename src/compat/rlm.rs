//! rlm-code's termination policies (`rlm_code.rlm.policies`): its registry's
//! `get_termination(name, config)` as [`termination_policy`].
//!
//! ```
//! use doneseq::stop::Condition;
//! use doneseq::compat::rlm::termination_policy;
//! use serde_json::json;
//!
//! let stop = termination_policy("composite", &json!({
//!     "policies": ["final_pattern", {"name": "reward_threshold", "config": {"min_reward_threshold": 0.9}}],
//!     "require_all": false,
//! }))?;
//! assert_eq!(stop, Condition::Final | Condition::reward(0.9));
//! # Ok::<(), doneseq::compat::CompatError>(())
//! ```
//!
//! The policies and their keys, with rlm-code's defaults:
//!
//! | policy | key | default | condition |
//! |---|---|---|---|
//! | `final_pattern` | `final_patterns` | rlm-code's three `FINAL`/`FINAL_VAR` regexes | [`Condition::Final`], plus `text(...)` for the others |
//! | | `case_sensitive` | `false` | `(?i)` on the extra patterns |
//! | | `extract_answer` | `true` | `false` is refused |
//! | `reward_threshold` | `min_reward_threshold` | `0.8` | [`RewardThreshold::threshold`] |
//! | | `max_negative_streak` | `3` | [`RewardThreshold::negative_streak`] (0 is refused) |
//! | | `require_final_action` | `false` | [`RewardThreshold::require_final`] |
//! | `confidence` | `confidence_threshold` | `0.85` | [`ConfidenceMet::threshold`] |
//! | | `min_steps_before_termination` | `2` | [`ConfidenceMet::min_steps`] |
//! | | `confidence_key` | `"confidence"` | [`ConfidenceMet::key`] |
//! | | `fallback_to_final_pattern` | `true` | [`ConfidenceMet::fallback_final`] |
//! | `composite` | `policies` | `["final_pattern", "reward_threshold"]` | the children |
//! | | `require_all` | `false` | [`Condition::All`] if true, else [`Condition::Any`] |
//!
//! A configuration is a JSON object (or `null`: every default); its keys override the
//! defaults one by one, as in rlm-code.
//!
//! # Where rlm-code and doneseq differ
//!
//! - **Nothing is skipped.** rlm-code's composite silently skips an unknown policy
//!   name (and an `AND` of only unknown names stops at once, `all([])` being true);
//!   here an unknown name is an error listing the names there are, and so is an empty
//!   composite. An unknown configuration key, which rlm-code keeps and never reads, is
//!   an error too, as is a value of the wrong type.
//! - **A composite's `AND` is latched.** rlm-code's `require_all` wants every
//!   sub-policy to agree on the same action; doneseq's [`Condition::All`] fires once
//!   each child has fired at some step of the run (in any order). For "on the same
//!   step", write `!(!a | !b)` in a stop expression.
//! - **Composites take configured children.** rlm-code builds each child by name with
//!   its default configuration; here an entry of `policies` may also be
//!   `{"name": ..., "config": {...}}`. A composite of one policy is that policy.
//! - **`final_pattern` is the parser, not regexes.** rlm-code's three default patterns
//!   are replaced by [`Condition::Final`], which detects what they were meant to
//!   without their false positives (see [`crate::answer`]); any other pattern in
//!   `final_patterns` becomes a `text(...)` condition (multi-line, case-insensitive
//!   unless `case_sensitive` is true) ORed with it. `Final` is always there, as in
//!   [`crate::answer::FinalPatternPolicy`], even if the list leaves rlm-code's
//!   patterns out. The stop's answer is the message's `FINAL` answer or its content,
//!   not an extra pattern's capture group, so `extract_answer: false` (the whole
//!   output as the answer) is refused rather than ignored.
//! - **`max_negative_streak: 0` is refused**: rlm-code stops at the first step (a
//!   streak of 0 reaches 0), while doneseq's 0 turns the streak test off.
//! - **`require_final_action`** becomes "the message has a `FINAL` answer" (messages
//!   have no action type).
//!
//! To run a policy step by step, put its condition in [`crate::TaskConfig::stop`] and
//! observe each action as a message: its output as the content, its confidence and
//! the step's reward on the message.
//!
//! ```
//! use doneseq::compat::rlm::termination_policy;
//! use doneseq::{Message, Monitor, TaskConfig};
//! use serde_json::json;
//!
//! let mut config = TaskConfig::default();
//! config.stop = Some(termination_policy("reward_threshold", &json!({"min_reward_threshold": 0.8}))?);
//! let monitor = Monitor::new(config)?;
//! let mut run = monitor.start();
//! let action = |reward: f64| Message::llm("progress").with_reward(reward);
//! assert!(monitor.observe(&mut run, &action(0.4)).outcome().is_none());
//! let outcome = monitor.observe(&mut run, &action(0.5)).outcome().cloned().unwrap();
//! assert_eq!(outcome.answer.unwrap().text, "progress");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde_json::{Map, Value};

use super::CompatError;
use crate::stop::{
    Condition, ConfidenceMet, MAX_CONDITION_DEPTH, RewardThreshold, TextMention, TextPattern,
};

/// The registered termination policy names, in rlm-code's order.
pub const TERMINATION_POLICIES: [&str; 4] = [
    "final_pattern",
    "reward_threshold",
    "confidence",
    "composite",
];

/// rlm-code's default `final_patterns`: `FINAL('answer')`, `FINAL(answer)` and
/// `FINAL_VAR('name')`. [`Condition::Final`] covers them.
pub const DEFAULT_FINAL_PATTERNS: [&str; 3] = [
    r#"FINAL\s*\(\s*['"](.+?)['"]\s*\)"#,
    r"FINAL\s*\(\s*(.+?)\s*\)",
    r#"FINAL_VAR\s*\(\s*['"](\w+)['"]\s*\)"#,
];

/// The most extra patterns a `final_pattern` policy may have (as in
/// [`crate::answer::FinalPatternPolicy::MAX_PATTERNS`]).
pub const MAX_FINAL_PATTERNS: usize = crate::answer::FinalPatternPolicy::MAX_PATTERNS;

/// rlm-code's `PolicyRegistry.get_termination(name, config)`: the condition of a
/// termination policy, by its registered name, with its configuration (a JSON object
/// of the keys to override, or `null` for the defaults). See the [module
/// documentation](self) for every key and default, and how the result differs from
/// rlm-code.
///
/// # Errors
///
/// - [`CompatError::UnknownPolicy`]: a name that is not one of
///   [`TERMINATION_POLICIES`] (the error lists them);
/// - [`CompatError::UnknownKey`], [`CompatError::InvalidValue`]: a key the policy does
///   not have, a value of the wrong type (also a configuration that is not an object);
/// - [`CompatError::Unsupported`]: `extract_answer: false`, `max_negative_streak: 0`;
/// - [`CompatError::InvalidPattern`] (in [`CompatError::AtIndex`]): an extra
///   `final_patterns` regex that does not compile;
/// - [`CompatError::EmptyComposite`], [`CompatError::TooDeep`], and a composite's
///   child's error in [`CompatError::AtIndex`] with `list` `"policies"`.
///
/// ```
/// use doneseq::compat::{CompatError, rlm::termination_policy};
/// use doneseq::stop::Condition;
/// use serde_json::json;
///
/// assert_eq!(termination_policy("final_pattern", &json!(null))?, Condition::Final);
/// let Condition::Confidence(c) = termination_policy("confidence", &json!({
///     "confidence_threshold": 0.95, "min_steps_before_termination": 3}))? else { panic!() };
/// assert_eq!((c.threshold, c.min_steps, c.fallback_final), (0.95, 3, true));
///
/// let err = termination_policy("composite", &json!({"policies": ["final_pattern", "convergence"]}));
/// assert_eq!(err.unwrap_err().to_string(), "policies[1]: unknown termination policy \
///     \"convergence\"; available: \"final_pattern\", \"reward_threshold\", \"confidence\", \"composite\"");
/// # Ok::<(), CompatError>(())
/// ```
pub fn termination_policy(name: &str, config: &Value) -> Result<Condition, CompatError> {
    build(name, config, 0)
}

fn build(name: &str, config: &Value, depth: usize) -> Result<Condition, CompatError> {
    let Some(&policy) = TERMINATION_POLICIES.iter().find(|p| **p == name) else {
        return Err(CompatError::UnknownPolicy {
            name: name.to_owned(),
            available: TERMINATION_POLICIES.to_vec(),
        });
    };
    let config = Config::new(policy, config)?;
    match policy {
        "final_pattern" => final_pattern(&config),
        "reward_threshold" => reward_threshold(&config),
        "confidence" => confidence(&config),
        _ => composite(&config, depth),
    }
}

/// A policy's configuration object, its keys checked against the policy's.
struct Config<'a> {
    policy: &'static str,
    map: Option<&'a Map<String, Value>>,
}

impl<'a> Config<'a> {
    fn new(policy: &'static str, config: &'a Value) -> Result<Config<'a>, CompatError> {
        let map = match config {
            Value::Null => None,
            Value::Object(map) => Some(map),
            other => {
                return Err(CompatError::InvalidValue {
                    policy,
                    key: "config",
                    expected: "a JSON object (or null)",
                    found: other.to_string(),
                });
            }
        };
        let known = keys(policy);
        if let Some(key) = map.and_then(|m| m.keys().find(|k| !known.contains(&k.as_str()))) {
            return Err(CompatError::UnknownKey {
                policy,
                key: key.clone(),
                known,
            });
        }
        Ok(Config { policy, map })
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.and_then(|m| m.get(key))
    }

    fn invalid(&self, key: &'static str, expected: &'static str, found: &Value) -> CompatError {
        CompatError::InvalidValue {
            policy: self.policy,
            key,
            expected,
            found: found.to_string(),
        }
    }

    fn number(&self, key: &'static str, default: f64) -> Result<f64, CompatError> {
        match self.get(key) {
            None => Ok(default),
            Some(value) => value
                .as_f64()
                .ok_or_else(|| self.invalid(key, "a number", value)),
        }
    }

    fn count(&self, key: &'static str, default: u64) -> Result<u64, CompatError> {
        match self.get(key) {
            None => Ok(default),
            Some(value) => value
                .as_u64()
                .ok_or_else(|| self.invalid(key, "a non-negative integer", value)),
        }
    }

    fn flag(&self, key: &'static str, default: bool) -> Result<bool, CompatError> {
        match self.get(key) {
            None => Ok(default),
            Some(value) => value
                .as_bool()
                .ok_or_else(|| self.invalid(key, "true or false", value)),
        }
    }

    fn text(&self, key: &'static str, default: &str) -> Result<String, CompatError> {
        match self.get(key) {
            None => Ok(default.to_owned()),
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            Some(value) => Err(self.invalid(key, "a non-empty string", value)),
        }
    }
}

/// The keys each policy reads.
fn keys(policy: &str) -> &'static [&'static str] {
    match policy {
        "final_pattern" => &["final_patterns", "case_sensitive", "extract_answer"],
        "reward_threshold" => &[
            "min_reward_threshold",
            "max_negative_streak",
            "require_final_action",
        ],
        "confidence" => &[
            "confidence_threshold",
            "min_steps_before_termination",
            "confidence_key",
            "fallback_to_final_pattern",
        ],
        _ => &["policies", "require_all"],
    }
}

fn final_pattern(config: &Config<'_>) -> Result<Condition, CompatError> {
    if !config.flag("extract_answer", true)? {
        return Err(CompatError::Unsupported {
            policy: "final_pattern",
            key: "extract_answer",
            reason: "false (the whole output as the answer) cannot be expressed by a \
                     stop condition: a stop's answer is the message's FINAL answer, or \
                     its content; leave extract_answer out",
        });
    }
    let case_sensitive = config.flag("case_sensitive", false)?;
    let mut conditions = vec![Condition::Final];
    if let Some(value) = config.get("final_patterns") {
        let invalid = || config.invalid("final_patterns", "a list of regex strings", value);
        let patterns = value.as_array().ok_or_else(invalid)?;
        if patterns.len() > MAX_FINAL_PATTERNS {
            return Err(config.invalid(
                "final_patterns",
                "at most 32 patterns",
                &Value::from(patterns.len()),
            ));
        }
        for (index, pattern) in patterns.iter().enumerate() {
            let pattern = pattern.as_str().ok_or_else(invalid)?;
            if DEFAULT_FINAL_PATTERNS.contains(&pattern) {
                continue;
            }
            let flags = if case_sensitive { "(?m)" } else { "(?im)" };
            let pattern = TextPattern::new(&format!("{flags}{pattern}")).map_err(|error| {
                CompatError::AtIndex {
                    list: "final_patterns",
                    index,
                    error: Box::new(CompatError::InvalidPattern { error }),
                }
            })?;
            conditions.push(Condition::Text(TextMention {
                pattern,
                from: Vec::new(),
            }));
        }
    }
    Ok(if conditions.len() == 1 {
        Condition::Final
    } else {
        Condition::Any(conditions)
    })
}

fn reward_threshold(config: &Config<'_>) -> Result<Condition, CompatError> {
    let defaults = RewardThreshold::default();
    let negative_streak = config.count("max_negative_streak", defaults.negative_streak)?;
    if negative_streak == 0 {
        return Err(CompatError::Unsupported {
            policy: "reward_threshold",
            key: "max_negative_streak",
            reason: "0 stops rlm-code at the first step (a streak of 0 reaches 0), while \
                     doneseq's 0 turns the streak test off; write max_turns(1) to stop \
                     at once, or a reward condition with negative_streak 0 for no \
                     streak test",
        });
    }
    Ok(Condition::Reward(RewardThreshold {
        threshold: config.number("min_reward_threshold", defaults.threshold)?,
        negative_streak,
        require_final: config.flag("require_final_action", defaults.require_final)?,
    }))
}

fn confidence(config: &Config<'_>) -> Result<Condition, CompatError> {
    let defaults = ConfidenceMet::default();
    Ok(Condition::Confidence(ConfidenceMet {
        threshold: config.number("confidence_threshold", defaults.threshold)?,
        min_steps: config.count("min_steps_before_termination", defaults.min_steps)?,
        key: config.text("confidence_key", &defaults.key)?,
        fallback_final: config.flag("fallback_to_final_pattern", defaults.fallback_final)?,
    }))
}

fn composite(config: &Config<'_>, depth: usize) -> Result<Condition, CompatError> {
    if depth >= MAX_CONDITION_DEPTH {
        return Err(CompatError::TooDeep {
            max: MAX_CONDITION_DEPTH,
        });
    }
    let require_all = config.flag("require_all", false)?;
    let default_policies = [
        Value::from(TERMINATION_POLICIES[0]),
        Value::from(TERMINATION_POLICIES[1]),
    ];
    let policies = match config.get("policies") {
        None => &default_policies[..],
        Some(Value::Array(items)) => &items[..],
        Some(other) => {
            return Err(config.invalid(
                "policies",
                "a list of policy names or {\"name\", \"config\"} objects",
                other,
            ));
        }
    };
    let mut children = policies
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            child(config, entry, depth).map_err(|error| CompatError::AtIndex {
                list: "policies",
                index,
                error: Box::new(error),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(match children.len() {
        0 => return Err(CompatError::EmptyComposite),
        1 => children.remove(0),
        _ if require_all => Condition::All(children),
        _ => Condition::Any(children),
    })
}

/// One entry of a composite's `policies`: a name, or `{"name": ..., "config": ...}`.
fn child(config: &Config<'_>, entry: &Value, depth: usize) -> Result<Condition, CompatError> {
    const EXPECTED: &str = "a policy name or a {\"name\", \"config\"} object";
    match entry {
        Value::String(name) => build(name, &Value::Null, depth + 1),
        Value::Object(object) => {
            if let Some(key) = object.keys().find(|k| *k != "name" && *k != "config") {
                return Err(CompatError::UnknownKey {
                    policy: "composite",
                    key: key.clone(),
                    known: &["name", "config"],
                });
            }
            let Some(Value::String(name)) = object.get("name") else {
                return Err(config.invalid("policies", EXPECTED, entry));
            };
            build(
                name,
                object.get("config").unwrap_or(&Value::Null),
                depth + 1,
            )
        }
        other => Err(config.invalid("policies", EXPECTED, other)),
    }
}
