//! Properties: `parse(x.to_string()) == x` for generated values, and no input, however
//! odd, makes the parser panic; whatever parses is canonical after one round.

use doneseq::{AgentEvent, ContentPattern, DoneSequence, Element, EventKind, Literal, ToolName};
use proptest::prelude::*;

/// Regexes with the constructs that stress bracket scanning: commas, classes (nested,
/// negated, with a leading `]`), escaped brackets, alternations, braces.
const PATTERNS: &[&str] = &[
    "quit|bye",
    "done,\\s*thanks",
    "[a-z]+",
    "[]a]",
    "[^]a]",
    "[a-z&&[^aeiou]]",
    "\\]",
    "\\[x\\]",
    "a{1,3}",
    "[[:alpha:]]+",
    "(?m)^FINAL",
    " ",
    "caf\u{e9}",
];

fn tool_name() -> impl Strategy<Value = String> {
    // Brackets, backslashes, commas and edge spaces: everything the printer escapes.
    "[a-z_ ,.\\[\\]\\\\\u{e9}-]{1,8}"
}

fn responder() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        3 => Just(None),
        1 => "[A-Za-z_][A-Za-z0-9_.-]{0,6}".prop_map(Some),
        1 => "[^\"]{1,6}|[a \"\\\\]{1,6}".prop_map(Some),
    ]
}

fn kind() -> impl Strategy<Value = EventKind> {
    prop_oneof![
        Just(EventKind::Tool),
        tool_name().prop_map(|n| EventKind::SpecificTool(ToolName::new(&n).unwrap())),
        Just(EventKind::Llm),
        Just(EventKind::Agent),
        Just(EventKind::User),
        Just(EventKind::NoResponse),
        prop::sample::select(PATTERNS)
            .prop_map(|p| EventKind::Content(ContentPattern::new(p).unwrap())),
        Just(EventKind::Final),
        Just(EventKind::Error),
        Just(EventKind::Any),
    ]
}

fn event() -> impl Strategy<Value = AgentEvent> {
    (kind(), responder()).prop_map(|(kind, responder)| match responder {
        Some(r) => AgentEvent::new(kind).with_responder(r),
        None => AgentEvent::new(kind),
    })
}

fn element() -> impl Strategy<Value = Element> {
    prop::collection::vec((event(), prop::bool::weighted(0.2)), 1..4).prop_filter_map(
        "unsatisfiable conjunction",
        |literals| {
            Element::all(literals.into_iter().map(|(event, negated)| {
                if negated {
                    Literal::not(event)
                } else {
                    Literal::new(event)
                }
            }))
            .ok()
        },
    )
}

fn sequence() -> impl Strategy<Value = DoneSequence> {
    // (element, run length) pairs, so that runs (`X{n}`) are common.
    let runs = prop::collection::vec((element(), 1..4usize), 1..6);
    (runs, prop::option::of(".{0,8}")).prop_map(|(runs, name)| {
        let elements = runs
            .into_iter()
            .flat_map(|(element, n)| std::iter::repeat_n(element, n))
            .collect();
        let seq = DoneSequence::new(elements).unwrap();
        match name {
            Some(name) => seq.with_name(name),
            None => seq,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn display_parses_back_to_an_equal_value(seq in sequence()) {
        let text = seq.to_string();
        let back = DoneSequence::parse(&text);
        prop_assert_eq!(back.as_ref(), Ok(&seq), "canonical text: {}", text);
    }

    #[test]
    fn sequences_survive_json_as_text_and_as_objects(seq in sequence()) {
        let text = serde_json::to_string(&seq).unwrap();
        prop_assert_eq!(serde_json::from_str::<DoneSequence>(&text).unwrap(), seq.clone());
        let object = serde_json::to_string(&doneseq::SequenceObject::from(&seq)).unwrap();
        let back = serde_json::from_str::<DoneSequence>(&object);
        prop_assert_eq!(back.as_ref().ok(), Some(&seq), "object form: {}", object);
    }

    #[test]
    fn events_round_trip_alone(event in event()) {
        let text = event.to_string();
        prop_assert_eq!(text.parse::<AgentEvent>(), Ok(event), "text: {}", text);
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        check_text(&text)?;
    }

    #[test]
    fn dsl_like_text_never_panics(
        text in "[TALUNCFE_tac!&,@{}\\[\\]\\\\\":|()*^ 0-9\u{a0}\u{200b}\u{e9}]{0,30}"
    ) {
        check_text(&text)?;
    }
}

/// Parsing either fails with a span inside the input on character boundaries, or
/// gives a value whose canonical text is a fixed point.
fn check_text(text: &str) -> Result<(), TestCaseError> {
    match DoneSequence::parse(text) {
        Ok(seq) => {
            let canonical = seq.to_string();
            let again = DoneSequence::parse(&canonical);
            prop_assert_eq!(again.as_ref(), Ok(&seq), "canonical text: {}", canonical);
            prop_assert_eq!(again.unwrap().to_string(), canonical);
        }
        Err(err) => {
            let span = err.span();
            prop_assert!(
                span.start <= span.end && span.end <= text.len(),
                "{:?}",
                span
            );
            prop_assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
            prop_assert_eq!(err.input(), text);
            // Both renderings work on any input.
            prop_assert!(!err.to_string().is_empty());
            let rendered = format!("{err:#}");
            prop_assert!(rendered.contains('^'), "{}", rendered);
        }
    }
    Ok(())
}
