//! The FINAL answer protocol (`doneseq::answer`): every example of rlm-code's docs,
//! the peers' known edge cases, the detector's own rules, and properties.

mod blocks;
mod detect;
mod documented;
mod hostile_inputs;
mod peers;
mod policy;
mod props;
#[cfg(feature = "serde")]
mod serde;
mod values;

use doneseq::answer::{FinalDetection, FinalDetector, FinalKind, FinalOptions};

/// What a detection should say, as a table cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Expect {
    /// Not detected, and not ambiguous.
    Nothing,
    /// Detected, of this kind, with this content.
    Found(FinalKind, &'static str),
    /// Two different signals: not detected.
    Ambiguous,
}

pub(crate) use Expect::*;
pub(crate) const DIRECT: FinalKind = FinalKind::Direct;
pub(crate) const VARIABLE: FinalKind = FinalKind::Variable;
pub(crate) const SUBMIT: FinalKind = FinalKind::Submit;

/// What a detection says, as a table cell; checks its fields are consistent, and that
/// `find` agrees with it.
#[track_caller]
pub(crate) fn summary(options: FinalOptions, text: &str) -> Expect {
    let detector = FinalDetector::new(options);
    let d = detector.detect(text);
    let m = detector.find(text);
    assert_consistent(text, &d);
    assert_eq!(
        d.detected,
        m.is_some_and(|m| !m.is_ambiguous()),
        "{text:?}: find and detect disagree"
    );
    assert_eq!(
        d.is_ambiguous(),
        m.is_some_and(|m| m.is_ambiguous()),
        "{text:?}"
    );
    if let Some(m) = m.filter(|m| !m.is_ambiguous()) {
        assert_eq!(d.kind, Some(m.kind()), "{text:?}");
        assert_eq!(d.span, Some(m.span()), "{text:?}");
    }
    match (d.detected, d.kind, d.content.as_deref()) {
        (true, Some(kind), Some(content)) => Found(kind, leak(content)),
        _ if d.is_ambiguous() => Ambiguous,
        _ => Nothing,
    }
}

/// The invariants of a [`FinalDetection`] documented on the type.
#[track_caller]
pub(crate) fn assert_consistent(text: &str, d: &FinalDetection) {
    if d.detected {
        let span = d.span.clone().expect("a span");
        assert_eq!(d.raw_match.as_deref(), text.get(span), "{text:?}");
        assert!(d.kind.is_some() && d.content.is_some(), "{text:?}");
        assert_eq!(d.value.is_none(), d.kind == Some(VARIABLE), "{text:?}");
        assert!(d.ambiguity.is_none());
    } else {
        assert!(d.kind.is_none() && d.content.is_none() && d.raw_match.is_none());
        assert!(d.span.is_none() && d.value.is_none());
    }
}

// Table cells compare `&'static str`s; leaking a few test strings is fine.
fn leak(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// Runs a table through one detector, reporting every wrong row at once.
#[track_caller]
pub(crate) fn check_table(options: FinalOptions, rows: &[(&str, Expect)]) {
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|&(text, expect)| {
            let got = summary(options, text);
            (got != expect).then(|| format!("{text:?}: expected {expect:?}, got {got:?}"))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} wrong rows:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn public_types_are_send_sync() {
    use std::panic::{RefUnwindSafe, UnwindSafe};
    fn assert_auto<T: Send + Sync + UnwindSafe + RefUnwindSafe + Unpin>() {}
    use doneseq::answer::*;
    assert_auto::<FinalDetector>();
    assert_auto::<FinalOptions>();
    assert_auto::<FinalMatch>();
    assert_auto::<FinalDetection>();
    assert_auto::<FinalKind>();
    assert_auto::<RejectReason>();
    assert_auto::<Rejection>();
    assert_auto::<Ambiguity>();
    assert_auto::<AnswerValue>();
    assert_auto::<LiteralError>();
    assert_auto::<ResolveError>();
    assert_auto::<FinalPatternConfig>();
    assert_auto::<FinalPatternPolicy>();
    assert_auto::<Decision>();
    assert_auto::<Trigger>();
    assert_auto::<PolicyError>();
}

#[test]
fn final_match_is_copy() {
    fn assert_copy<T: Copy>() {}
    assert_copy::<doneseq::answer::FinalMatch>();
    assert_copy::<doneseq::answer::FinalDetector>();
}
