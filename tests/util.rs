//! Helpers that make tests read as tables.

use doneseq::{DoneSequence, EventKind, ParseError, ToolName};

/// Parses `text`, failing the test with the rendered error if it does not parse.
#[track_caller]
pub(crate) fn seq(text: &str) -> DoneSequence {
    match DoneSequence::parse(text) {
        Ok(seq) => seq,
        Err(err) => panic!("{text:?} should parse, got:\n{err:#}"),
    }
}

/// Parses `text`, failing the test if it parses.
#[track_caller]
pub(crate) fn seq_err(text: &str) -> ParseError {
    match DoneSequence::parse(text) {
        Ok(seq) => panic!("{text:?} should not parse, got {seq}"),
        Err(err) => err,
    }
}

/// The kinds of the elements of a sequence of single events.
#[track_caller]
pub(crate) fn kinds(seq: &DoneSequence) -> Vec<EventKind> {
    seq.elements()
        .iter()
        .map(|element| {
            assert_eq!(element.literals().len(), 1, "{seq}: expected single events");
            element.literals()[0].event().kind().clone()
        })
        .collect()
}

/// `T[name]` as a kind.
#[track_caller]
pub(crate) fn tool(name: &str) -> EventKind {
    EventKind::SpecificTool(ToolName::new(name).unwrap())
}
