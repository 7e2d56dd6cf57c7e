//! The object form with Langroid's field names, and the extensions of the DSL.

use doneseq::object::{ElementObject, EventObject};
use doneseq::{DoneSequence, EventKind, EventType, ObjectError, ParseErrorKind, SequenceObject};

use crate::util::{kinds, seq, tool};

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
    assert_eq!(second[1].event().kind(), &tool("search"));

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

#[test]
fn unsatisfiable_conjunctions_are_errors() {
    use crate::util::seq_err;
    for text in [
        "L & A",
        "T & !T",
        "!_",
        "!T & T[x]",
        "!A & A@db",
        "!_@db & A@db",
        "A@x & A@y",
        "A & !_",
        "!T & !L & !A & !U & !N",
    ] {
        let err = seq_err(text);
        assert_eq!(err.kind().name(), "unsatisfiable", "{text}: {err}");
    }
    // ... and these can hold: the responder, the specific tool or a missing kind leaves
    // room for a message.
    for text in [
        "!_@db",
        "T & !T[x]",
        "A@db & !A@other",
        "!T & !L & !A & !U",
        "!T[x] & !L & !A & !U & !N",
        "!A@db & !L & !T & !U & !N",
        "C[x] & !C[y] & F & !E",
    ] {
        seq(text);
    }
}

#[test]
fn content_patterns_that_would_not_print_back_are_refused() {
    // In `(?x)` mode `#` starts a comment, so these are valid regexes, but their `[` or
    // trailing `\` would swallow the `]` of `C[...]`.
    for pattern in ["(?x)a #[", "(?x)a #\\"] {
        let err = doneseq::ContentPattern::new(pattern).unwrap_err();
        assert_eq!(err.kind(), &ParseErrorKind::UnclosedBracket, "{pattern}");
    }
    let ok = doneseq::ContentPattern::new("(?x)a #\\[").unwrap();
    assert_eq!(seq(&format!("C[{ok}]")).to_string(), "C[(?x)a #\\[]");
}

#[test]
fn empty_names_are_errors_in_text_and_objects() {
    use crate::util::seq_err;
    assert_eq!(seq_err("\"\": T").kind(), &ParseErrorKind::EmptyName);
    assert_eq!(seq_err("A@\"\"").kind(), &ParseErrorKind::EmptyName);
    let object = SequenceObject {
        name: None,
        events: vec![ElementObject::Event(EventObject {
            responder: Some(String::new()),
            ..event(EventType::AgentResponse)
        })],
    };
    let err = DoneSequence::try_from(object).unwrap_err();
    assert_eq!(
        err.to_string(),
        "events[0]: 'responder' is empty (leave it out for none)"
    );
    // A misplaced field is refused even when empty.
    let object = SequenceObject {
        name: None,
        events: vec![ElementObject::Event(EventObject {
            tool_name: Some(String::new()),
            ..event(EventType::Tool)
        })],
    };
    let err = DoneSequence::try_from(object).unwrap_err();
    assert!(
        matches!(
            err,
            ObjectError::UnexpectedField {
                field: "tool_name",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn regex_limits_are_checked_before_the_work() {
    use crate::util::seq_err;
    // 64 KiB of large Unicode classes: refused by length before any regex parsing (it
    // used to take seconds and most of a gigabyte in the regex parser).
    let huge = format!("C[{}]", "\\pL".repeat(21_000));
    let err = seq_err(&huge);
    assert!(
        matches!(err.kind(), ParseErrorKind::PatternTooLong { max: 1024, .. }),
        "{err}"
    );
    assert_eq!(err.span(), 2..huge.len() - 1);
    // Each `C[...]` compiles a regex: at most MAX_PATTERNS of them per sequence, while a
    // repeat shares one.
    let many: Vec<String> = (0..33).map(|n| format!("C[w{n}]")).collect();
    let err = seq_err(&many.join(", "));
    assert_eq!(
        err.kind(),
        &ParseErrorKind::TooManyPatterns {
            max: doneseq::dsl::MAX_PATTERNS
        }
    );
    assert_eq!(&err.input()[err.span()], "C[w32]");
    assert_eq!(seq("C[w]{200}").len(), 200);
}
