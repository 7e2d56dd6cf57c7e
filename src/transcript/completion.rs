//! OpenAI Chat Completions response objects (`"object": "chat.completion"`): the
//! model's answer, `choices[0].message`, with the call's `usage`.

use serde::Deserialize;

use super::record::{Context, Failure, Out, message};
use super::wire::{JsonLine, ProviderUsage};
use crate::Message;

/// A `chat.completion` object. Its other fields (`id`, `object`, `created`, `model`,
/// `system_fingerprint`, `service_tier`) describe the call, not the message.
#[derive(Deserialize)]
pub(super) struct Completion<'a> {
    #[serde(borrow)]
    choices: Vec<Choice<'a>>,
    #[serde(default)]
    usage: Option<ProviderUsage>,
}

/// One choice; `index`, `finish_reason` and `logprobs` are not read.
#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(borrow)]
    message: JsonLine<'a>,
}

/// The message of a completion: its one choice, with the call's usage.
pub(super) fn read<'a>(
    completion: Completion<'a>,
    within: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    let count = completion.choices.len();
    let Some(choice) = completion.choices.into_iter().next().filter(|_| count == 1) else {
        // Several choices are alternatives (`n` > 1), not steps: the log does not
        // say which one the loop went on with.
        return Err(Failure::message(
            within,
            format!(
                "a chat.completion with {count} choices: a transcript step is one answer \
                 (log the choice the loop went on with as a message)"
            ),
        ));
    };
    let start = out.len();
    message(choice.message, within, cx, out)?;
    add_usage(completion.usage, out[start..].last_mut());
    Ok(())
}

/// The call's usage goes to the completion's last message (its answer, or the last
/// tool result it carries), unless that message reports its own.
pub(super) fn add_usage(usage: Option<ProviderUsage>, last: Option<&mut Message<'_>>) {
    if let (Some(usage), Some(last)) = (usage, last) {
        if last.usage.is_none() {
            last.usage = Some(usage.into_usage());
        }
    }
}
