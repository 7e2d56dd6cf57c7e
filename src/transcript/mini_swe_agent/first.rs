//! mini-swe-agent 1's trajectories (`mini-swe-agent-1`): their messages read by
//! their place, the model's command found by the run's own regex.

use std::borrow::Cow;

use super::{Entry, Extra, Info, Saved, bash, output, submission};
use crate::transcript::parts::plain_text;
use crate::transcript::record::{Failure, Out};
use crate::{Message, ToolCall};

/// mini-swe-agent 1's regex for the model's command (1.x's default; 1.0's had no
/// `\s*`, which only widens it).
const FIRST_REGEX: &str = r"```bash\s*\n(.*?)\n```";

/// The run's regex, compiled as mini-swe-agent 1 compiles it (`re.DOTALL`). The last
/// one compiled on this thread is kept: a corpus's trajectories share their
/// configuration, and compiling it was a fifth of a trajectory's reading.
fn compiled(pattern: &str) -> Result<regex::Regex, regex::Error> {
    thread_local! {
        static LAST: std::cell::RefCell<Option<regex::Regex>> = const { std::cell::RefCell::new(None) };
    }
    if let Some(regex) =
        LAST.with_borrow(|last| last.as_ref().filter(|r| r.as_str() == pattern).cloned())
    {
        return Ok(regex);
    }
    let regex = regex::RegexBuilder::new(pattern)
        .dot_matches_new_line(true)
        .build()?;
    #[cfg(test)]
    tests::COMPILED.set(tests::COMPILED.get() + 1);
    LAST.set(Some(regex.clone()));
    Ok(regex)
}

/// mini-swe-agent 1's rules for its trajectory.
pub(super) struct First {
    /// What the model's command is found by: the run's.
    regex: regex::Regex,
    /// The run ended `Submitted`: its last message is the submission.
    submitted: bool,
    /// The run ended on a limit: its last message is the limit's, after an output.
    limited: bool,
}

impl First {
    /// The rules of a trajectory whose `info` is `info`: the run's regex (or
    /// mini-swe-agent 1's default), how the run ended; an error where the regex is
    /// not one doneseq runs.
    pub(super) fn of<'a>(info: Option<Info<'a>>, within: &'a str) -> Result<First, Failure<'a>> {
        let (status, regex) = match info {
            Some(info) => (
                info.exit_status,
                info.config
                    .and_then(|c| c.agent)
                    .and_then(|a| a.action_regex),
            ),
            None => (None, None),
        };
        let pattern = regex.as_ref().map_or(FIRST_REGEX, |r| &*r.0);
        let regex = compiled(pattern).map_err(|e| {
            Failure::message(
                within,
                format!(
                    "the trajectory's action_regex {pattern:?} is not a regex doneseq \
                         runs: {}",
                    e.to_string().lines().last().unwrap_or_default()
                ),
            )
        })?;
        let status = status.as_ref().map(|s| &*s.0);
        Ok(First {
            regex,
            submitted: status == Some("Submitted"),
            limited: status == Some("LimitsExceeded"),
        })
    }

    /// The messages of a mini-swe-agent 1 message, `commands` the number of commands
    /// in the message before it if that was the model's, `last` whether it is the
    /// trajectory's last: the number of commands in this one, if it is the model's.
    pub(super) fn read<'a>(
        &self,
        entry: Entry<'a>,
        commands: Option<usize>,
        last: bool,
        within: &'a str,
        out: &mut Out<'a>,
    ) -> Result<Option<usize>, Failure<'a>> {
        let fail = |m: String| Failure::message(within, m);
        let role = entry
            .role
            .ok_or_else(|| fail("a message without a \"role\"".to_owned()))?;
        let text = plain_text(entry.content, "a mini-swe-agent message's content").map_err(fail)?;
        match (&*role.0, commands) {
            ("system", _) => out.push(Message::system(text)),
            ("assistant", _) => {
                let found: Vec<ToolCall<'a>> = self.commands(&text);
                let count = found.len();
                let mut message = Message::llm(text);
                if count == 1 {
                    message.tool_calls = found;
                }
                if let Some(usage) = entry.extra.and_then(|e| e.response).and_then(Saved::usage) {
                    message = message.with_usage(usage);
                }
                out.push(message);
                return Ok(Some(count));
            }
            ("user", Some(1)) if last && self.submitted => out.push(submission(text)),
            ("user", Some(1)) => out.push(first_output(text)),
            ("user", None) if last && self.limited => {}
            ("user", _) => out.push(Message::user(text)),
            (other, _) => {
                return Err(fail(format!(
                    "a mini-swe-agent 1 message of role \"{other}\" (expected system, user \
                     or assistant)"
                )));
            }
        }
        Ok(None)
    }

    /// The commands the run's regex finds in a model's text, as calls of `bash`
    /// (mini-swe-agent 1 ran the one it found if it found one, else none).
    fn commands<'a>(&self, text: &str) -> Vec<ToolCall<'a>> {
        self.regex
            .captures_iter(text)
            .filter_map(|found| found.get(1).or_else(|| found.get(0)))
            .map(|command| bash(command.as_str().trim()))
            .collect()
    }
}

/// A mini-swe-agent 1 command's output: a result of `bash`, failed where it begins
/// with a return code other than 0 (`<returncode>n</returncode>`), as mini-swe-agent
/// 2 keeps the code beside it.
fn first_output(text: Cow<'_, str>) -> Message<'_> {
    let returncode = text
        .trim_start()
        .strip_prefix("<returncode>")
        .and_then(|rest| rest.split_once("</returncode>"))
        .and_then(|(code, _)| code.trim().parse::<i64>().ok());
    let kept = Extra {
        returncode,
        ..Extra::default()
    };
    output(Message::agent(text), &kept)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use crate::transcript::{Format, read_transcript};

    thread_local! {
        /// The regexes compiled on this thread.
        pub(super) static COMPILED: Cell<usize> = const { Cell::new(0) };
    }

    /// mini-swe-agent 1's trajectories of one configuration compile its regex once, as
    /// they are read one after another; another regex is compiled (and the first again
    /// after it), and each trajectory is read by its own.
    #[test]
    fn a_corpus_of_one_configuration_compiles_its_regex_once() {
        let trajectory = |regex: &str, fence: &str| {
            format!(
                r#"{{"info": {{"config": {{"agent": {{"action_regex": {regex:?}}}}}}}, "messages": [{{"role": "user", "content": "t"}}, {{"role": "assistant", "content": "{fence}\nls\n```"}}, {{"role": "user", "content": "out"}}], "trajectory_format": "mini-swe-agent-1"}}"#
            )
        };
        let sh = trajectory(r"```sh\s*\n(.*?)\n```", "```sh");
        let bash = trajectory(r"```bash\s*\n(.*?)\n```", "```bash");
        let calls = |log: &str| {
            let before = COMPILED.get();
            let calls: Vec<usize> = read_transcript(log.as_bytes(), Format::MiniSweAgent)
                .unwrap()
                .iter()
                .map(|m| m.tool_calls.len())
                .collect();
            (calls, COMPILED.get() - before)
        };
        // Warm: the last regex compiled on this thread is kept.
        let _ = calls(&bash);
        let log = format!("{sh}\n{sh}\n{sh}\n");
        assert_eq!(calls(&log), (vec![0, 1, 0, 0, 1, 0, 0, 1, 0], 1));
        let log = format!("{sh}\n{bash}\n{sh}\n");
        assert_eq!(calls(&log), (vec![0, 1, 0, 0, 1, 0, 0, 1, 0], 2));
        // Each by its own: a fence of another regex's is no command.
        let mixed = trajectory(r"```sh\s*\n(.*?)\n```", "```bash");
        assert_eq!(calls(&mixed), (vec![0, 0, 0], 0));
    }
}
