//! Properties over odd inputs: detection never panics, every span it reports is inside
//! the input and on char boundaries, `find` agrees with `detect`, and the other entry
//! points are as robust.

use doneseq::answer::{
    AnswerValue, FinalDetector, FinalOptions, LiteralError, detect_final_in_code,
    extract_code_blocks, format_final_answer,
};
use proptest::prelude::*;

use super::assert_consistent;

/// The pieces that stress the tokenizer: names (and near-names), brackets, every
/// quote form, escapes, comments, negations, fences, line breaks, multi-byte chars.
const PIECES: &[&str] = &[
    "FINAL",
    "FINAL_VAR",
    "SUBMIT",
    "NOT_FINAL",
    "FINALIZE",
    "final",
    "(",
    ")",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "\"",
    "'",
    "\"\"\"",
    "'''",
    "\\",
    "\\\"",
    "#",
    "\n",
    "\r\n",
    " ",
    "\t",
    "x",
    "answer",
    "=",
    "==",
    ",",
    ":",
    ".",
    "not ",
    "don't ",
    "call ",
    "`",
    "```",
    "```repl\n",
    "r\"",
    "f'",
    "b'",
    "42",
    "-1.5",
    "True",
    "None",
    "\u{e9}",
    "\u{2019}",
    "\u{1F600}",
    "\u{2014}",
    "def ",
    "obj.",
];

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(prop::sample::select(PIECES), 0..40).prop_map(|p| p.concat()),
        1 => any::<String>(),
        1 => (any::<String>(), prop::sample::select(PIECES), any::<String>())
            .prop_map(|(a, p, b)| format!("{a}{p}({b})")),
    ]
}

fn options() -> impl Strategy<Value = FinalOptions> {
    prop_oneof![
        Just(FinalOptions::text()),
        Just(FinalOptions::text().strict(true)),
        Just(FinalOptions::code()),
    ]
}

/// A span is usable on the input: in bounds, ordered, on char boundaries.
fn assert_span(text: &str, span: &std::ops::Range<usize>) {
    assert!(
        span.start <= span.end && span.end <= text.len(),
        "{span:?} in {text:?}"
    );
    assert!(
        text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
        "{span:?} splits a char in {text:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn detection_is_total_and_spans_are_sound(text in text(), options in options()) {
        let detector = FinalDetector::new(options);
        let d = detector.detect(&text);
        assert_consistent(&text, &d);
        for span in d.span.iter()
            .chain(d.ambiguity.iter().flat_map(|a| [&a.first, &a.second]))
            .chain(d.rejected.iter().map(|r| &r.span))
        {
            assert_span(&text, span);
        }
        let m = detector.find(&text);
        if let Some(m) = m {
            assert_span(&text, &m.span());
            assert_span(&text, &m.arg_span());
            // The argument is inside the call.
            prop_assert!(m.span().start <= m.arg_span().start && m.arg_span().end <= m.span().end);
            if let Some(c) = m.conflict_span() {
                assert_span(&text, &c);
                prop_assert!(c.start >= m.span().end);
            }
        }
        // find and detect agree.
        prop_assert_eq!(d.detected, m.is_some_and(|m| !m.is_ambiguous()));
        prop_assert_eq!(d.is_ambiguous(), m.is_some_and(|m| m.is_ambiguous()));
        if d.detected {
            let m = m.unwrap();
            prop_assert_eq!(d.kind, Some(m.kind()));
            prop_assert_eq!(d.span.clone(), Some(m.span()));
        }
        if let Some(a) = &d.ambiguity {
            let m = m.unwrap();
            prop_assert_eq!(&a.first, &m.span());
            prop_assert_eq!(Some(a.second.clone()), m.conflict_span());
        }
        // The same text is read the same way twice.
        prop_assert_eq!(detector.detect(&text), d.clone());
        // And formatting the value never panics.
        if let Some(value) = &d.value {
            let _ = format_final_answer(value);
            let _ = value.to_string();
        }
    }

    #[test]
    fn code_detection_is_total(code in text()) {
        let d = detect_final_in_code(&code);
        assert_consistent(&code, &d);
        prop_assert!(d.ambiguity.is_none());
    }

    #[test]
    fn code_blocks_are_slices_of_the_input(text in text(), language in "[a-z]{0,5}") {
        for block in extract_code_blocks(&text, &language) {
            let start = block.as_ptr() as usize - text.as_ptr() as usize;
            prop_assert!(start + block.len() <= text.len());
            prop_assert_eq!(&text[start..start + block.len()], block);
            prop_assert!(!block.is_empty());
        }
    }

    #[test]
    fn literal_parsing_is_total(text in text()) {
        if let Ok(value) = AnswerValue::parse(&text) {
            // Python's repr of a value is a literal for it: in a list, every item
            // prints as its repr, and that text parses back equal.
            let wrapped = AnswerValue::List(vec![value]);
            match AnswerValue::parse(&wrapped.to_string()) {
                Err(LiteralError::TooDeep { .. }) => {}
                back => prop_assert_eq!(back, Ok(wrapped)),
            }
        }
    }
}

/// The hostile texts (`hostile_inputs.rs`), 200 KB each, are read to a sound answer,
/// a function of the text. Their time is measured, not asserted: `cargo bench --bench
/// answer` (group `hostile`) reads each at 20 KB and at 200 KB, and the same
/// throughput at both sizes is linear time.
#[test]
fn hostile_inputs_are_read_to_a_sound_answer() {
    for (prefix, piece) in super::hostile_inputs::HOSTILE {
        let text = format!("{prefix}{}", piece.repeat(200_000 / piece.len()));
        for options in [FinalOptions::text(), FinalOptions::code()] {
            let detector = FinalDetector::new(options);
            let d = detector.detect(&text);
            // A detection (`) FINAL(x` repeated closes its calls) is a slice of the
            // text; every rejection too.
            if let Some(span) = &d.span {
                assert_eq!(d.raw_match.as_deref(), text.get(span.clone()));
            }
            assert!(d.rejected.iter().all(|r| r.span.end <= text.len()));
            assert_eq!(detector.detect(&text), d, "{prefix}{piece:?}...");
        }
    }
}
