//! The table of conditions, walked row by row: every built-in's examples parse,
//! print back as written, and round-trip through JSON, TOML and YAML; its aliases
//! read as it; the docs list it. Adding a row without examples, or with an example
//! that does not round-trip, fails here.

use doneseq::stop::{Condition, ConditionId};
use serde::{Deserialize, Serialize};

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Task {
    stop: Condition,
}

#[test]
fn every_row_round_trips_through_every_form() {
    for id in ConditionId::ALL {
        assert!(!id.examples().is_empty(), "{id:?} has no example");
        for &example in id.examples() {
            let condition: Condition = example
                .parse()
                .unwrap_or_else(|e| panic!("{id:?}: {example}: {e:#}"));
            assert_eq!(condition.id(), id, "{example}");
            assert_eq!(condition.to_string(), example, "{id:?} prints canonically");
            let task = Task { stop: condition };
            let json = serde_json::to_string(&task).unwrap();
            assert_eq!(serde_json::from_str::<Task>(&json).unwrap(), task, "{json}");
            let toml_text = toml::to_string(&task).unwrap();
            assert_eq!(
                toml::from_str::<Task>(&toml_text).unwrap(),
                task,
                "{toml_text}"
            );
            let yaml = serde_norway::to_string(&task).unwrap();
            assert_eq!(
                serde_norway::from_str::<Task>(&yaml).unwrap(),
                task,
                "{yaml}"
            );
            // The tag of the object form is the canonical name.
            let value = serde_json::to_value(&task.stop).unwrap();
            assert_eq!(value["type"], id.name(), "{value}");
        }
    }
}

#[test]
fn every_alias_reads_as_its_row() {
    for id in ConditionId::ALL {
        let example = id.examples()[0];
        for &alias in id.aliases() {
            assert!(example.starts_with(id.name()), "{example}");
            let written = format!("{alias}{}", &example[id.name().len()..]);
            let condition: Condition = written.parse().unwrap();
            assert_eq!(
                (condition.id(), condition.to_string()),
                (id, example.to_owned())
            );
            let tagged = serde_json::json!({"type": alias});
            if id.options().is_empty() {
                let condition: Condition = serde_json::from_value(tagged).unwrap();
                assert_eq!(condition.id(), id, "{alias}");
            }
        }
    }
}

#[test]
fn names_are_distinct_and_every_row_is_in_the_docs() {
    let readme = include_str!("../README.md");
    let grammar = include_str!("../grammar.md");
    let mut names: Vec<&str> = Vec::new();
    for id in ConditionId::ALL {
        names.push(id.name());
        names.extend(id.aliases());
        assert!(!id.doc().is_empty() && !id.usage().is_empty(), "{id:?}");
        if matches!(id, ConditionId::All | ConditionId::Any | ConditionId::Not) {
            continue;
        }
        let row = format!("| `{}", id.name());
        assert!(
            grammar.contains(&row),
            "grammar.md has no row for {}",
            id.name()
        );
        assert!(
            readme.contains(&row),
            "README.md has no row for {}",
            id.name()
        );
    }
    let count = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), count, "a name or an alias is used twice");
}

#[test]
fn the_declared_kind_is_the_kind_a_firing_node_reports() {
    use doneseq::{Message, Monitor, TaskConfig, VerdictKind};
    // Conditions that fire on a first step `llm("DONE FINAL(1)")` with one token.
    for (text, id) in [
        ("final", ConditionId::Final),
        ("done_signal", ConditionId::DoneSignal),
        ("max_turns(1)", ConditionId::MaxTurns),
        ("tokens(1)", ConditionId::Tokens),
        ("no_tool_calls", ConditionId::NoToolCalls),
        ("text(\"DONE\")", ConditionId::Text),
        ("response([llm])", ConditionId::Response),
        ("single_round", ConditionId::SingleRound),
        ("!cancelled", ConditionId::Not),
        ("consecutive_errors(0)", ConditionId::ConsecutiveErrors),
    ] {
        let mut config = TaskConfig::default();
        config.recognize_string_signals = false;
        config.stop = Some(text.parse().unwrap());
        let monitor = Monitor::new(config).unwrap();
        let message = Message::llm("DONE FINAL(1)").with_usage(doneseq::Usage {
            input_tokens: 1,
            output_tokens: 0,
        });
        let outcome = monitor
            .observe(&mut monitor.start(), &message)
            .outcome()
            .cloned()
            .unwrap_or_else(|| panic!("{text} fires"));
        let fired = &outcome.conditions[0];
        assert_eq!(fired.id, id);
        assert_eq!(Some(fired.kind), id.verdict_kind(), "{text}");
        assert_ne!(fired.kind, VerdictKind::Cancelled);
    }
}
