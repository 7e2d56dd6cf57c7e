//! serde: sequences travel as DSL text, deserialize from text or Langroid objects, and
//! list errors name the bad entry.

use doneseq::{AgentEvent, DoneSequence, DoneSequences};
use serde_json::json;

use crate::util::seq;

#[test]
fn a_sequence_serializes_as_its_canonical_text() {
    let s = seq("calc: TOOL[calculator], agent");
    assert_eq!(
        serde_json::to_value(&s).unwrap(),
        json!("calc: T[calculator], A")
    );
    let back: DoneSequence = serde_json::from_value(json!("calc: T[calculator], A")).unwrap();
    assert_eq!(back, s);
}

#[test]
fn a_sequence_deserializes_from_a_langroid_object() {
    let value = json!({
        "name": "specific_tool_pattern",
        "events": [
            {"event_type": "specific_tool", "tool_name": "calculator", "tool_class": null},
            {"event_type": "agent_response", "responder": "DatabaseAgent", "sender": null},
            {"event_type": "content_match", "content_pattern": "quit|bye"},
            [{"event_type": "llm_response"}, {"event_type": "error", "negated": true}],
            {"event_type": "tool"}, {"event_type": "user_response"},
            {"event_type": "no_response"}, {"event_type": "final"}, {"event_type": "any"}
        ]
    });
    let s: DoneSequence = serde_json::from_value(value).unwrap();
    assert_eq!(
        s.to_string(),
        "specific_tool_pattern: T[calculator], A@DatabaseAgent, C[quit|bye], L & !E, T, U, N, F, _"
    );
}

#[test]
fn a_list_may_mix_text_and_objects_and_errors_name_the_index() {
    let list: DoneSequences = serde_json::from_value(json!([
        "T, A",
        {"events": [{"event_type": "tool"}, {"event_type": "agent_response"}]},
    ]))
    .unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0], list[1]);

    let err = serde_json::from_str::<DoneSequences>(r#"["T, A", "T A"]"#).unwrap_err();
    insta::assert_snapshot!(err, @r#"done sequence 1: error parsing done sequence "T A" at 2..3: expected ',' or '&' after an event, found 'A' (separate events with ',') at line 1 column 15"#);
    let err = serde_json::from_str::<DoneSequences>(
        r#"["T", {"events": [{"event_type": "specific_tool"}]}]"#,
    )
    .unwrap_err();
    insta::assert_snapshot!(err, @"done sequence 1: events[0]: event_type 'specific_tool' needs 'tool_name' at line 1 column 52");
    let err = serde_json::from_str::<DoneSequences>(
        r#"["T", "A", {"events": [{"event_type": "tool", "colour": 1}]}]"#,
    )
    .unwrap_err();
    insta::assert_snapshot!(err, @"done sequence 2: unknown field `colour`, expected one of `event_type`, `tool_name`, `content_pattern`, `responder`, `tool_class`, `sender`, `negated` at line 1 column 54");
    let err = serde_json::from_str::<DoneSequences>(r#"["T", 3]"#).unwrap_err();
    insta::assert_snapshot!(err, @r#"done sequence 1: invalid type: integer `3`, expected a done sequence such as "T[calculator], A" or {"events": [...]} at line 1 column 7"#);
    let err = serde_json::from_str::<DoneSequences>(r#"[{"events": [{"event_type": "nope"}]}]"#)
        .unwrap_err();
    insta::assert_snapshot!(err, @"done sequence 0: unknown variant `nope`, expected one of `tool`, `specific_tool`, `llm_response`, `agent_response`, `user_response`, `no_response`, `content_match`, `final`, `error`, `any` at line 1 column 34");
}

#[test]
fn every_generated_kind_of_sequence_survives_json() {
    for text in [
        "T[calculator], A, C[quit|bye]",
        "\"name with space\": T[a\\]b]{3}, L & !C[done,\\s*x] & F, A@\"x y\", _, E, N, U",
        "\"q\\\"uote\": C[[a-z&&[^aeiou]]]",
    ] {
        let s = seq(text);
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(
            serde_json::from_str::<DoneSequence>(&json).unwrap(),
            s,
            "{json}"
        );
        let object = serde_json::to_value(doneseq::SequenceObject::from(&s)).unwrap();
        assert_eq!(serde_json::from_value::<DoneSequence>(object).unwrap(), s);
        let list = DoneSequences::from(vec![s.clone(), s.clone()]);
        let json = serde_json::to_string(&list).unwrap();
        assert_eq!(serde_json::from_str::<DoneSequences>(&json).unwrap(), list);
    }
}

#[test]
fn events_serialize_as_text() {
    let event: AgentEvent = "A@Database".parse().unwrap();
    assert_eq!(serde_json::to_value(&event).unwrap(), json!("A@Database"));
    assert_eq!(
        serde_json::from_value::<AgentEvent>(json!("AGENT@Database")).unwrap(),
        event
    );
    let err = serde_json::from_value::<AgentEvent>(json!("T, A")).unwrap_err();
    assert!(
        err.to_string()
            .contains("expected end of input after an event"),
        "{err}"
    );
}
