//! Every public type is `Send + Sync` (and unwind-safe): values are shared freely
//! across threads, and the compiled side will be shared by every run.

use std::panic::{RefUnwindSafe, UnwindSafe};

fn assert_auto<T: Send + Sync + UnwindSafe + RefUnwindSafe + Unpin>() {}

#[test]
fn public_types_are_send_sync() {
    assert_auto::<doneseq::DoneSequence>();
    assert_auto::<doneseq::DoneSequences>();
    assert_auto::<doneseq::Element>();
    assert_auto::<doneseq::Literal>();
    assert_auto::<doneseq::AgentEvent>();
    assert_auto::<doneseq::EventKind>();
    assert_auto::<doneseq::BaseKind>();
    assert_auto::<doneseq::ContentPattern>();
    assert_auto::<doneseq::ToolName>();
    assert_auto::<doneseq::ParseError>();
    assert_auto::<doneseq::ParseErrorKind>();
    assert_auto::<doneseq::ListError>();
    assert_auto::<doneseq::Error>();
    assert_auto::<doneseq::SequenceObject>();
    assert_auto::<doneseq::object::ElementObject>();
    assert_auto::<doneseq::object::EventObject>();
    assert_auto::<doneseq::EventType>();
    assert_auto::<doneseq::ObjectError>();
}
