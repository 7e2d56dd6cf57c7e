//! The answer a stop carries: a `FINAL` answer, the content without its `DONE`, or the content.

use super::verdict::{Answer, AnswerSource};
use crate::Message;
use crate::answer::FinalKind;
use crate::answer::done::done_at;

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
pub(crate) fn answer(message: &Message, done_signal: bool) -> Option<Answer> {
    if message.is_no_response() || message.error().is_some() {
        return None;
    }
    let content = message.content();
    if let Some((text, source)) = final_answer(content) {
        return Some(Answer { text, source });
    }
    if done_signal && let Some(i) = done_at(content) {
        let rest = content[i + 4..].trim_start_matches(|c: char| c == ':' || c.is_whitespace());
        let text = format!("{}{}", &content[..i], rest).trim().to_owned();
        return Some(Answer {
            text,
            source: AnswerSource::DoneSignal,
        });
    }
    Some(Answer {
        text: content.to_owned(),
        source: AnswerSource::Message,
    })
}
