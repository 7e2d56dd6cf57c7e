//! OpenAI Chat Completions response objects (`"object": "chat.completion"`): the
//! model's answer, `choices[0].message`, with the call's `usage`.

use serde::Deserialize;

use super::record::{Context, Failure, Out, message};
use super::wire::{JsonLine, ProviderUsage, Str};
use crate::Message;

/// A `chat.completion` object. Its other fields (`id`, `created`, `model`,
/// `system_fingerprint`, `service_tier`) describe the call, not the message.
#[derive(Deserialize)]
pub(super) struct Completion<'a> {
    /// `chat.completion`, or `chat.completion.chunk` for a piece of a streamed one.
    #[serde(default, borrow)]
    object: Option<Str<'a>>,
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

/// Why a chunk of a streamed completion is not read.
const CHUNK: &str = "a chunk of a streamed chat completion (\"object\": \
                     \"chat.completion.chunk\", its choices' \"delta\"): a transcript step \
                     is a whole answer (log the message the chunks add up to)";

/// Whether an `object` is a chunk's, `chat.completion.chunk`.
fn names_a_chunk(object: Option<Str<'_>>) -> bool {
    object.is_some_and(|o| o.0 == "chat.completion.chunk")
}

/// Whether `text` is a chunk of a streamed completion, which does not read as a
/// completion (its choices hold a `delta`, not a `message`): asked where it did not
/// read, to say so.
pub(super) fn is_chunk(text: &str) -> bool {
    #[derive(Deserialize)]
    struct Object<'a> {
        #[serde(default, borrow)]
        object: Option<Str<'a>>,
    }
    serde_json::from_str::<Object<'_>>(text).is_ok_and(|o| names_a_chunk(o.object))
}

/// A chunk of a streamed completion, refused (see [`is_chunk`]).
pub(super) fn chunk(within: &str) -> Failure<'_> {
    Failure::message(within, CHUNK)
}

/// The message of a completion: its one choice, with the call's usage.
pub(super) fn read<'a>(
    completion: Completion<'a>,
    within: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    // (A stream's last chunk may hold no choice, only the usage: it parses.)
    if names_a_chunk(completion.object) {
        return Err(chunk(within));
    }
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
    if let (Some(usage), Some(last)) = (usage, last)
        && last.usage.is_none()
    {
        last.usage = Some(usage.into_usage());
    }
}
