//! Ollama's chat responses (`/api/chat`; the Python client's `ChatResponse`,
//! dumped): the model's message, with the call's token counts.

use serde::Deserialize;

use super::completion::add_usage;
use super::record::{Context, Failure, Out, message};
use super::wire::{JsonLine, ProviderUsage};

/// An Ollama chat response. Its other fields (`model`, `created_at`, `done_reason`,
/// the durations, `logprobs`) describe the call, not the message.
#[derive(Deserialize)]
pub(super) struct ChatResponse<'a> {
    #[serde(borrow)]
    message: JsonLine<'a>,
    /// `false` on each chunk of a streamed answer but its last.
    done: bool,
    /// The prompt's tokens.
    #[serde(default)]
    prompt_eval_count: Option<u64>,
    /// The answer's tokens.
    #[serde(default)]
    eval_count: Option<u64>,
}

/// The message of a response, with the call's token counts.
pub(super) fn read<'a>(
    response: ChatResponse<'a>,
    within: &'a str,
    cx: &mut Context,
    out: &mut Out<'a>,
) -> Result<(), Failure<'a>> {
    if !response.done {
        // A chunk holds a piece of the answer's text, and the last one (`done`) none
        // of it: read one by one, they would be as many steps.
        return Err(Failure::message(
            within,
            "a chunk of a streamed Ollama answer (\"done\": false): a transcript step is \
             a whole answer (log the message the chunks add up to)",
        ));
    }
    let usage =
        (response.prompt_eval_count.is_some() || response.eval_count.is_some()).then(|| {
            ProviderUsage {
                input_tokens: response.prompt_eval_count,
                output_tokens: response.eval_count,
                ..ProviderUsage::default()
            }
        });
    let start = out.len();
    message(response.message, within, cx, out)?;
    add_usage(usage, out[start..].last_mut());
    Ok(())
}
