//! Text signals: Langroid's `DONE`, and the answer a stop carries.

use std::sync::LazyLock;

use memchr::memmem::Finder;

use super::verdict::{Answer, AnswerSource, StopReason};
use crate::Message;
use crate::answer::FinalKind;

/// Whether `content` contains the word `DONE` (case-sensitive, not inside a longer
/// word). Langroid tests `"DONE" in content`, so "ABANDONED" ends its task; the
/// word boundary keeps `DONE`, `DONE: 42` and `... DONE.` and drops that.
pub(crate) fn says_done(content: &str) -> bool {
    done_at(content).is_some()
}

/// The searcher for `DONE`, built once (`str::match_indices` builds one per call,
/// which costs more than the search on a short message).
static DONE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("DONE"));

/// The byte offset of the first `DONE` word.
fn done_at(content: &str) -> Option<usize> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    DONE.find_iter(content.as_bytes()).find(|&i| {
        let before = content[..i].chars().next_back();
        let after = content[i + 4..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// The `FINAL` answer in `content`, as text, and whether it names a variable
/// (`FINAL_VAR`), whose value the monitor cannot know.
fn final_answer(content: &str) -> Option<(String, AnswerSource)> {
    let detection = crate::answer::FinalDetector::default().detect(content);
    if !detection.detected {
        return None;
    }
    if detection.kind == Some(FinalKind::Variable) {
        return detection
            .content
            .map(|name| (name, AnswerSource::FinalVariable));
    }
    let text = match &detection.value {
        Some(value) => crate::answer::format_final_answer(value),
        None => detection.content?,
    };
    Some((text, AnswerSource::Final))
}

/// The answer a stop at `message` carries: a `FINAL` answer if there is one, the
/// content without its `DONE` for a string signal, else the content; none for a step
/// without a response or one that reports an error (an error message is never an
/// answer).
pub(crate) fn answer(message: &Message, reason: &StopReason) -> Option<Answer> {
    if message.is_no_response() || message.error().is_some() {
        return None;
    }
    let content = message.content();
    if let Some((text, source)) = final_answer(content) {
        return Some(Answer { text, source });
    }
    if *reason == StopReason::StringSignal {
        if let Some(i) = done_at(content) {
            let rest = content[i + 4..].trim_start_matches(|c: char| c == ':' || c.is_whitespace());
            let text = format!("{}{}", &content[..i], rest).trim().to_owned();
            return Some(Answer {
                text,
                source: AnswerSource::DoneSignal,
            });
        }
    }
    Some(Answer {
        text: content.to_owned(),
        source: AnswerSource::Message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn done_is_a_word() {
        for yes in ["DONE", "DONE: 42", "all DONE.", "(DONE)", "x\nDONE"] {
            assert!(says_done(yes), "{yes}");
        }
        for no in [
            "ABANDONED",
            "DONEZO",
            "done",
            "UNDONE",
            "DONE_X",
            "",
            "DON E",
        ] {
            assert!(!says_done(no), "{no}");
        }
    }
}
