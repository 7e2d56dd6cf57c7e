//! The object form with Langroid's field names, and the extensions of the DSL.

use doneseq::object::{ElementObject, EventObject};
use doneseq::{DoneSequence, EventKind, EventType, ObjectError, ParseErrorKind, SequenceObject};

use crate::util::{kinds, seq};

#[test]
fn extensions_parse_to_their_meaning() {
    let s = seq("F, E, _, ANY, FINAL, ERROR");
    use EventKind::{Any, Error, Final};
    assert_eq!(kinds(&s), [Final, Error, Any, Any, Final, Error]);

    let s = seq("L & C[DONE], T & !T[search]");
    let first = s.elements()[0].literals();
    assert_eq!(first.len(), 2);
    assert_eq!(first[0].event().kind(), &EventKind::Llm);
    assert!(matches!(first[1].event().kind(), EventKind::Content(p) if p.as_str() == "DONE"));
    let second = s.elements()[1].literals();
    assert!(!second[0].is_negated());
    assert!(second[1].is_negated());
    assert_eq!(
        second[1].event().kind(),
        &EventKind::SpecificTool("search".into())
    );

    let s = seq("A@Database, T[query]@\"sub task\"");
    assert_eq!(
        s.elements()[0].literals()[0].event().responder(),
        Some("Database")
    );
    assert_eq!(
        s.elements()[1].literals()[0].event().responder(),
        Some("sub task")
    );

    // A repeat expands to equal elements and binds the whole element.
    let s = seq("L & C[x]{2}, A");
    assert_eq!(s.len(), 3);
    assert_eq!(s.elements()[0], s.elements()[1]);
    assert_eq!(s.elements()[0].literals().len(), 2);
    assert_eq!(s.to_string(), "L & C[x]{2}, A");

    let s = seq("my-seq.v2 : T");
    assert_eq!(s.name(), Some("my-seq.v2"));
    // A word followed by ':' is a name, even if it is also an event.
    assert_eq!(seq("T: A").name(), Some("T"));
    assert_eq!(kinds(&seq("T: A")), [EventKind::Agent]);
}

#[test]
fn satisfiable_conjunctions_are_accepted() {
    // Predicates combine with any base kind, and different tools can be called in one
    // message.
    for text in [
        "L & C[x] & F",
        "T[a] & T[b]",
        "A & !E",
        "_ & !L",
        "!T & !A",
        "T & !T[x]",
    ] {
        seq(text);
    }
}

fn event(event_type: EventType) -> EventObject {
    EventObject::new(event_type)
}

#[test]
fn object_form_converts_both_ways() {
    let object = SequenceObject {
        name: Some("complex_check".into()),
        events: vec![
            ElementObject::Event(EventObject {
                tool_name: Some("database_query".into()),
                responder: Some("DatabaseAgent".into()),
                ..event(EventType::SpecificTool)
            }),
            ElementObject::Event(event(EventType::AgentResponse)),
            ElementObject::All(vec![
                event(EventType::LlmResponse),
                EventObject {
                    content_pattern: Some("done".into()),
                    ..event(EventType::ContentMatch)
                },
                EventObject {
                    negated: true,
                    ..event(EventType::Error)
                },
            ]),
        ],
    };
    let s = DoneSequence::try_from(object.clone()).unwrap();
    assert_eq!(
        s.to_string(),
        "complex_check: T[database_query]@DatabaseAgent, A, L & C[done] & !E"
    );
    assert_eq!(SequenceObject::from(&s), object);
}

#[test]
fn object_form_refuses_what_it_would_ignore() {
    let convert = |events: Vec<EventObject>| {
        let object = SequenceObject {
            name: None,
            events: events.into_iter().map(ElementObject::Event).collect(),
        };
        DoneSequence::try_from(object).unwrap_err()
    };
    let missing = convert(vec![event(EventType::Tool), event(EventType::SpecificTool)]);
    assert_eq!(
        missing.to_string(),
        "events[1]: event_type 'specific_tool' needs 'tool_name'"
    );
    assert!(matches!(
        missing,
        ObjectError::MissingField {
            field: "tool_name",
            ..
        }
    ));

    let stray = convert(vec![EventObject {
        tool_name: Some("x".into()),
        ..event(EventType::Tool)
    }]);
    assert_eq!(
        stray.to_string(),
        "events[0]: 'tool_name' is not allowed with event_type 'tool' (use event_type 'specific_tool')"
    );
    let sender = convert(vec![EventObject {
        sender: Some("LLM".into()),
        ..event(EventType::Tool)
    }]);
    assert!(matches!(
        sender,
        ObjectError::UnexpectedField {
            field: "sender",
            ..
        }
    ));
    let class = convert(vec![EventObject {
        tool_class: Some("X".into()),
        ..event(EventType::Tool)
    }]);
    assert!(matches!(
        class,
        ObjectError::UnexpectedField {
            field: "tool_class",
            ..
        }
    ));

    let regex = convert(vec![EventObject {
        content_pattern: Some("a(".into()),
        ..event(EventType::ContentMatch)
    }]);
    let ObjectError::Pattern { path, error } = &regex else {
        panic!("{regex:?}")
    };
    assert_eq!(path, "events[0]");
    assert_eq!(error.input(), "a(");
    assert!(matches!(error.kind(), ParseErrorKind::InvalidRegex { .. }));

    let empty = convert(vec![]);
    assert!(
        matches!(&empty, ObjectError::Invalid { error, .. } if error.kind() == &ParseErrorKind::Empty)
    );

    let never = convert(vec![EventObject {
        negated: true,
        ..event(EventType::Any)
    }]);
    assert!(matches!(&never, ObjectError::Invalid { error, .. }
        if matches!(error.kind(), ParseErrorKind::Unsatisfiable { .. })));
}

#[test]
fn content_pattern_refuses_a_bracket_that_would_close_it() {
    let err = doneseq::ContentPattern::new("a]b").unwrap_err();
    assert_eq!(err.kind(), &ParseErrorKind::StrayBracket);
    assert_eq!(err.span(), 1..2);
    assert!(doneseq::ContentPattern::new("a\\]b").is_ok());
    assert!(doneseq::ContentPattern::new("[]a]").is_ok());
}
