//! The message model: one step of an agent task, as the monitor sees it.
//!
//! A [`Message`] is what one responder produced in one step: who spoke ([`Role`]), the
//! responder's name, the text, the tool calls, token usage, an error, and the optional
//! confidence and reward some loops report. A step that produced nothing valid is a
//! message too ([`Message::no_response`]): it is what the DSL's `N` matches.
//!
//! Transcripts of these are read by [`crate::transcript`] (feature `json`).

use std::borrow::Cow;
use std::fmt;

/// Who produced a message.
///
/// ```
/// use doneseq::Role;
///
/// assert_eq!("assistant".parse::<Role>()?, Role::Llm);
/// assert_eq!(Role::Agent.to_string(), "agent");
/// # Ok::<(), doneseq::RoleError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// The user (Langroid `Entity.USER`, OpenAI `user`).
    User,
    /// The language model (Langroid `Entity.LLM`, OpenAI `assistant`).
    Llm,
    /// The agent's own code, e.g. a tool's result (Langroid `Entity.AGENT`, OpenAI
    /// `tool`).
    Agent,
    /// The system prompt or other set-up text. Not a step of the task: the monitor
    /// records it and moves on (see [`crate::Monitor::observe`]).
    System,
}

impl Role {
    /// The canonical lowercase name: `user`, `llm`, `agent` or `system`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Llm => "llm",
            Role::Agent => "agent",
            Role::System => "system",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A role name that is none of the accepted ones.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown role '{0}' (expected user, llm, agent or system; also assistant, tool, developer)"
)]
pub struct RoleError(pub String);

impl std::str::FromStr for Role {
    type Err = RoleError;

    /// Accepts the canonical names, Langroid's entity names and OpenAI's roles, in any
    /// case: `user`; `llm`, `assistant`; `agent`, `tool`, `function`; `system`,
    /// `developer`.
    fn from_str(s: &str) -> Result<Role, RoleError> {
        // Compared in place, not lowercased into a new string: a transcript reads one
        // role per message.
        const NAMES: [(&str, Role); 8] = [
            ("user", Role::User),
            ("llm", Role::Llm),
            ("assistant", Role::Llm),
            ("agent", Role::Agent),
            ("tool", Role::Agent),
            ("function", Role::Agent),
            ("system", Role::System),
            ("developer", Role::System),
        ];
        // Most often spelled in lower case: matched exactly first.
        if let Some(&(_, role)) = NAMES.iter().find(|(name, _)| *name == s) {
            return Ok(role);
        }
        NAMES
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(s))
            .map(|&(_, role)| role)
            .ok_or_else(|| RoleError(s.to_owned()))
    }
}

/// One tool call of an LLM message.
///
/// ```
/// use doneseq::ToolCall;
///
/// let call = ToolCall::new("calculator", r#"{"expression": "6*7"}"#);
/// assert_eq!(call.name(), "calculator");
/// assert_eq!(call.arguments(), r#"{"expression": "6*7"}"#);
/// ```
// Compared, hashed and shown by its arguments' text, however they are kept.
#[derive(Clone)]
pub struct ToolCall<'a> {
    name: Cow<'a, str>,
    arguments: CallArguments<'a>,
    id: Option<Cow<'a, str>>,
}

/// A tool call's arguments: their JSON text, or the text of the JSON string a log
/// wrote them in (OpenAI's and AutoGen's `"arguments": "{\"a\": 1}"`), its escapes
/// not decoded until the text is asked for. A replay most often never asks (only an
/// arguments condition, a loop check or an explanation does), and decoding every
/// call's arguments as it is read costs an allocation and a pass over them; the
/// log's text is borrowed instead, checked (a string the reader keeps so always
/// decodes). Three cases in the size of a `Cow<str>` (a call is moved whole as a
/// message is built).
#[derive(Clone)]
pub(crate) enum CallArguments<'a> {
    /// JSON text, borrowed.
    Borrowed(&'a str),
    /// JSON text, owned.
    Owned(String),
    /// A JSON string with escapes, as written (its quotes included), borrowed from
    /// the log (by the transcript reader: feature `json`).
    #[cfg(feature = "json")]
    Escaped(&'a str),
}

impl<'a> CallArguments<'a> {
    /// JSON text.
    pub(crate) fn text(text: impl Into<Cow<'a, str>>) -> CallArguments<'a> {
        match text.into() {
            Cow::Borrowed(text) => CallArguments::Borrowed(text),
            Cow::Owned(text) => CallArguments::Owned(text),
        }
    }

    /// The JSON text.
    fn get(&self) -> Cow<'_, str> {
        match self {
            CallArguments::Borrowed(text) => Cow::Borrowed(text),
            CallArguments::Owned(text) => Cow::Borrowed(text),
            #[cfg(feature = "json")]
            CallArguments::Escaped(quoted) => Cow::Owned(decode_escaped(quoted)),
        }
    }

    /// The same arguments free of what they borrowed from (an escaped text decoded:
    /// a fourth case, escaped and owned, made every call's drop dearer, measured).
    pub(crate) fn into_owned(self) -> CallArguments<'static> {
        CallArguments::Owned(self.into_string())
    }

    /// The arguments' JSON text, owned (an escaped text decoded).
    pub(crate) fn into_string(self) -> String {
        match self {
            CallArguments::Borrowed(text) => text.to_owned(),
            CallArguments::Owned(text) => text,
            #[cfg(feature = "json")]
            CallArguments::Escaped(quoted) => decode_escaped(quoted),
        }
    }
}

impl Default for CallArguments<'_> {
    fn default() -> Self {
        CallArguments::Borrowed("")
    }
}

/// The text of the JSON string `quoted`, as a log wrote it (quotes and escapes),
/// which the reader that kept it checked: it always decodes. Were it not to, the
/// text as written is kept rather than none (no panic on a log's text).
#[cfg(feature = "json")]
fn decode_escaped(quoted: &str) -> String {
    crate::json_string::decode(quoted).unwrap_or_else(|| quoted.to_owned())
}

impl PartialEq for ToolCall<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.arguments() == other.arguments() && self.id == other.id
    }
}

impl Eq for ToolCall<'_> {}

impl std::hash::Hash for ToolCall<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.arguments().hash(state);
        self.id.hash(state);
    }
}

impl fmt::Debug for ToolCall<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolCall")
            .field("name", &self.name)
            .field("arguments", &self.arguments())
            .field("id", &self.id)
            .finish()
    }
}

impl<'a> ToolCall<'a> {
    /// A call of `name` with `arguments`, the JSON text of its arguments (kept as
    /// text: the monitor never needs them parsed, and the text is what a log holds).
    #[must_use]
    pub fn new(name: impl Into<Cow<'a, str>>, arguments: impl Into<Cow<'a, str>>) -> ToolCall<'a> {
        ToolCall::with_arguments(name.into(), CallArguments::text(arguments))
    }

    /// The call's name, arguments and id (the transcript reader keeps a call apart
    /// and builds it again with [`ToolCall::with_arguments`]).
    #[cfg(feature = "json")]
    pub(crate) fn into_parts(self) -> (Cow<'a, str>, CallArguments<'a>, Option<Cow<'a, str>>) {
        (self.name, self.arguments, self.id)
    }

    /// A call of its parts, as [`ToolCall::into_parts`] gives them (built whole: the
    /// call given an id after it is built is moved again, 72 bytes).
    #[cfg(feature = "json")]
    pub(crate) fn from_parts(
        name: Cow<'a, str>,
        arguments: CallArguments<'a>,
        id: Option<Cow<'a, str>>,
    ) -> ToolCall<'a> {
        ToolCall {
            name,
            arguments,
            id,
        }
    }

    /// A call of `name` with `arguments` however they are kept (the transcript
    /// reader's).
    pub(crate) fn with_arguments(name: Cow<'a, str>, arguments: CallArguments<'a>) -> ToolCall<'a> {
        ToolCall {
            name,
            arguments,
            id: None,
        }
    }

    /// The same call with the provider's call id (OpenAI `tool_calls[].id`).
    #[must_use]
    pub fn with_id(mut self, id: impl Into<Cow<'a, str>>) -> ToolCall<'a> {
        self.id = Some(id.into());
        self
    }

    /// The tool's name, which `T[name]` compares exactly.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The arguments as JSON text (empty when the log had none). Borrowed from the
    /// call, or from the log it was read from; decoded at each call where the log
    /// wrote them as a JSON string with escapes (OpenAI's and AutoGen's
    /// `"arguments": "{\"a\": 1}"`, kept as written until asked for): keep what it
    /// returns rather than asking again.
    #[must_use]
    pub fn arguments(&self) -> Cow<'_, str> {
        self.arguments.get()
    }

    /// The provider's call id, if the log had one.
    #[must_use]
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The same call owning its texts, free of what it borrowed from.
    #[must_use]
    pub fn into_owned(self) -> ToolCall<'static> {
        ToolCall {
            name: Cow::Owned(self.name.into_owned()),
            arguments: self.arguments.into_owned(),
            id: self.id.map(|id| Cow::Owned(id.into_owned())),
        }
    }
}

#[cfg(test)]
impl ToolCall<'_> {
    /// Whether the call's name and id (if it has one) are borrowed: what the
    /// transcript reader's tests ask of a call read without a copy.
    pub(crate) fn borrows(&self) -> bool {
        matches!(self.name, Cow::Borrowed(_))
            && self
                .id
                .as_ref()
                .is_none_or(|id| matches!(id, Cow::Borrowed(_)))
    }
}

/// Tokens a step consumed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
}

/// One step of an agent task.
///
/// Build one with a constructor per role and the `with_*` methods:
///
/// ```
/// use doneseq::{Message, Role, ToolCall};
///
/// let call = Message::llm("").with_tool_call(ToolCall::new("calculator", "{}"));
/// assert_eq!(call.role(), Role::Llm);
/// assert_eq!(call.tool_calls().len(), 1);
///
/// let result = Message::agent("42").with_responder("Calc");
/// assert_eq!(result.responder(), Some("Calc"));
///
/// let nothing = Message::no_response(Role::Llm);
/// assert!(nothing.is_no_response());
/// ```
///
/// Its texts are borrowed or owned (`'a` is what they borrow from): a message built
/// over a log line or a caller's strings copies nothing, and
/// [`Message::into_owned`] makes one that outlives them.
///
/// ```
/// use doneseq::Message;
///
/// let line = String::from("The answer is 42");
/// let borrowed = Message::llm(line.as_str()); // no copy of the text
/// let kept: Message<'static> = borrowed.clone().into_owned();
/// drop(line);
/// assert_eq!(kept.content(), "The answer is 42");
/// ```
// The fields are the crate's: the transcript reader builds a message whole.
#[derive(Clone, Debug, PartialEq)]
pub struct Message<'a> {
    pub(crate) role: Role,
    pub(crate) no_response: bool,
    pub(crate) responder: Option<Cow<'a, str>>,
    pub(crate) content: Cow<'a, str>,
    pub(crate) tool_calls: Vec<ToolCall<'a>>,
    pub(crate) usage: Option<Usage>,
    pub(crate) tool_call_id: Option<Cow<'a, str>>,
    /// What few messages carry, boxed: a message is built and moved once per step,
    /// and its size is the cost of each move (136 bytes, not 272).
    pub(crate) rare: Option<Box<Rare<'a>>>,
}

/// The fields of a [`Message`] that few messages set. A message holds them only if it
/// sets one, so that two equal messages compare equal.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Rare<'a> {
    pub(crate) error: Option<Cow<'a, str>>,
    pub(crate) confidence: Option<f64>,
    pub(crate) reward: Option<f64>,
    pub(crate) metrics: Vec<(Cow<'a, str>, f64)>,
    pub(crate) elapsed: Option<std::time::Duration>,
    pub(crate) stop: bool,
    pub(crate) handoff: Option<Cow<'a, str>>,
    pub(crate) tool_name: Option<Cow<'a, str>>,
    pub(crate) input: Option<bool>,
}

impl Rare<'_> {
    /// Whether no field is set (the transcript reader boxes the fields only if one is).
    #[cfg(feature = "json")]
    pub(crate) fn is_empty(&self) -> bool {
        *self == Rare::default()
    }

    /// The same fields owning their texts.
    pub(crate) fn into_owned(self) -> Rare<'static> {
        fn own(text: Cow<'_, str>) -> Cow<'static, str> {
            Cow::Owned(text.into_owned())
        }
        Rare {
            error: self.error.map(own),
            confidence: self.confidence,
            reward: self.reward,
            metrics: self.metrics.into_iter().map(|(n, v)| (own(n), v)).collect(),
            elapsed: self.elapsed,
            stop: self.stop,
            handoff: self.handoff.map(own),
            tool_name: self.tool_name.map(own),
            input: self.input,
        }
    }
}

impl<'a> Message<'a> {
    /// A message from `role` with `content`.
    #[must_use]
    #[inline]
    pub fn new(role: Role, content: impl Into<Cow<'a, str>>) -> Message<'a> {
        Message {
            role,
            no_response: false,
            responder: None,
            content: content.into(),
            tool_calls: Vec::new(),
            usage: None,
            tool_call_id: None,
            rare: None,
        }
    }

    /// A user message.
    #[must_use]
    #[inline]
    pub fn user(content: impl Into<Cow<'a, str>>) -> Message<'a> {
        Message::new(Role::User, content)
    }

    /// An LLM message (add tool calls with [`Message::with_tool_call`]).
    #[must_use]
    #[inline]
    pub fn llm(content: impl Into<Cow<'a, str>>) -> Message<'a> {
        Message::new(Role::Llm, content)
    }

    /// An agent message, e.g. a tool's result.
    #[must_use]
    #[inline]
    pub fn agent(content: impl Into<Cow<'a, str>>) -> Message<'a> {
        Message::new(Role::Agent, content)
    }

    /// A system message (not a step of the task).
    #[must_use]
    #[inline]
    pub fn system(content: impl Into<Cow<'a, str>>) -> Message<'a> {
        Message::new(Role::System, content)
    }

    /// A step in which `role` was asked and produced no valid response. It satisfies
    /// `N`, whatever the role.
    #[must_use]
    #[inline]
    pub fn no_response(role: Role) -> Message<'a> {
        let mut message = Message::new(role, "");
        message.no_response = true;
        message
    }

    /// The same message, from the named responder (an agent, entity or sub-task
    /// name), which `X@name` compares exactly.
    #[must_use]
    #[inline]
    pub fn with_responder(mut self, responder: impl Into<Cow<'a, str>>) -> Message<'a> {
        self.responder = Some(responder.into());
        self
    }

    /// The same message with one more tool call.
    #[must_use]
    #[inline]
    pub fn with_tool_call(mut self, call: ToolCall<'a>) -> Message<'a> {
        self.tool_calls.push(call);
        self
    }

    /// The same message with its token usage.
    #[must_use]
    #[inline]
    pub fn with_usage(mut self, usage: Usage) -> Message<'a> {
        self.usage = Some(usage);
        self
    }

    /// The same message, reporting an error (it satisfies `E`).
    #[must_use]
    #[inline]
    pub fn with_error(mut self, error: impl Into<Cow<'a, str>>) -> Message<'a> {
        self.rare().error = Some(error.into());
        self
    }

    /// The same message with the model's self-reported confidence.
    #[must_use]
    #[inline]
    pub fn with_confidence(mut self, confidence: f64) -> Message<'a> {
        self.rare().confidence = Some(confidence);
        self
    }

    /// The same message with a reward signal.
    #[must_use]
    #[inline]
    pub fn with_reward(mut self, reward: f64) -> Message<'a> {
        self.rare().reward = Some(reward);
        self
    }

    /// The same message with a named number (a score, a probability) that a stop
    /// condition may read, e.g. `confidence(0.9, key="score")`. Setting a name again
    /// replaces its value.
    #[must_use]
    #[inline]
    pub fn with_metric(mut self, name: impl Into<Cow<'a, str>>, value: f64) -> Message<'a> {
        let name = name.into();
        let metrics = &mut self.rare().metrics;
        match metrics.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => metrics.push((name, value)),
        }
        self
    }

    /// The same message, answering the tool call with this id (OpenAI's
    /// `tool_call_id` on a `tool` message): how `tool(name, executed)` knows which
    /// call a result answers.
    #[must_use]
    #[inline]
    pub fn with_tool_call_id(mut self, id: impl Into<Cow<'a, str>>) -> Message<'a> {
        self.tool_call_id = Some(id.into());
        self
    }

    /// The same message, as the result of the tool `name`: a result that names its
    /// tool is attributable without its request in view (AutoGen's results carry the
    /// function's name).
    #[must_use]
    #[inline]
    pub fn with_tool_name(mut self, name: impl Into<Cow<'a, str>>) -> Message<'a> {
        self.rare().tool_name = Some(name.into());
        self
    }

    /// The same message, as a stop message: its speaker ends the conversation
    /// (AutoGen's `StopMessage`). `stop_message` fires on it.
    #[must_use]
    #[inline]
    pub fn as_stop(mut self) -> Message<'a> {
        self.rare().stop = true;
        self
    }

    /// The same message, as a handoff to `target` (AutoGen's `HandoffMessage`).
    /// `handoff(...)` fires on it.
    #[must_use]
    #[inline]
    pub fn with_handoff(mut self, target: impl Into<Cow<'a, str>>) -> Message<'a> {
        self.rare().handoff = Some(target.into());
        self
    }

    /// The same message, marked as part of the task's input (`true`: not a step,
    /// whatever its role or place) or as a step (`false`: even a leading user
    /// message). Unmarked messages are decided by the task's
    /// [`crate::stop::TaskInput`]; [`crate::stop::TaskInput::Steps`] makes every
    /// message a step, marked or not.
    ///
    /// ```
    /// use doneseq::{Message, Monitor, TaskConfig};
    ///
    /// let monitor = Monitor::new(TaskConfig::default())?;
    /// let mut run = monitor.start();
    /// // A handed-over history given to the task: input, though the model said it.
    /// monitor.observe(&mut run, &Message::llm("Earlier answer").with_input(true));
    /// assert_eq!(run.steps(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    #[inline]
    pub fn with_input(mut self, input: bool) -> Message<'a> {
        self.rare().input = Some(input);
        self
    }

    /// The same message, recorded this long after the run started. When a message
    /// carries it, `timeout(...)` reads it instead of the monitor's clock, so a
    /// replayed log times out where the live run did.
    #[must_use]
    #[inline]
    pub fn with_elapsed(mut self, elapsed: std::time::Duration) -> Message<'a> {
        self.rare().elapsed = Some(elapsed);
        self
    }

    /// The same message owning its texts, free of what it borrowed from.
    #[must_use]
    pub fn into_owned(self) -> Message<'static> {
        fn own(text: Cow<'_, str>) -> Cow<'static, str> {
            Cow::Owned(text.into_owned())
        }
        Message {
            role: self.role,
            no_response: self.no_response,
            responder: self.responder.map(own),
            content: own(self.content),
            tool_calls: self
                .tool_calls
                .into_iter()
                .map(ToolCall::into_owned)
                .collect(),
            usage: self.usage,
            tool_call_id: self.tool_call_id.map(own),
            rare: self.rare.map(|rare| Box::new(rare.into_owned())),
        }
    }

    /// The rare fields, added if the message has none yet (the transcript readers set
    /// them in place on a message already in their output).
    pub(crate) fn rare(&mut self) -> &mut Rare<'a> {
        self.rare.get_or_insert_with(Box::default)
    }

    /// Who produced it.
    #[must_use]
    pub const fn role(&self) -> Role {
        self.role
    }

    /// The responder's name, if known.
    #[must_use]
    pub fn responder(&self) -> Option<&str> {
        self.responder.as_deref()
    }

    /// The text.
    #[must_use]
    pub fn content(&self) -> &str {
        &self.content
    }

    /// The tool calls, in order.
    #[must_use]
    pub fn tool_calls(&self) -> &[ToolCall<'a>] {
        &self.tool_calls
    }

    /// Token usage, if reported.
    #[must_use]
    pub const fn usage(&self) -> Option<Usage> {
        self.usage
    }

    /// The error the step reported, if any.
    #[must_use]
    pub fn error(&self) -> Option<&str> {
        self.rare.as_ref().and_then(|r| r.error.as_deref())
    }

    /// The model's confidence, if reported.
    #[must_use]
    pub fn confidence(&self) -> Option<f64> {
        self.rare.as_ref().and_then(|r| r.confidence)
    }

    /// The reward, if reported.
    #[must_use]
    pub fn reward(&self) -> Option<f64> {
        self.rare.as_ref().and_then(|r| r.reward)
    }

    /// The named number set by [`Message::with_metric`], if any.
    #[must_use]
    pub fn metric(&self, name: &str) -> Option<f64> {
        self.metrics()
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, v)| v)
    }

    /// All named numbers, in the order they were set.
    #[must_use]
    pub fn metrics(&self) -> &[(Cow<'a, str>, f64)] {
        self.rare.as_ref().map_or(&[], |r| &r.metrics)
    }

    /// The id of the tool call this message answers, if known.
    #[must_use]
    pub fn tool_call_id(&self) -> Option<&str> {
        self.tool_call_id.as_deref()
    }

    /// The tool whose result this is, when the message says so.
    #[must_use]
    pub fn tool_name(&self) -> Option<&str> {
        self.rare.as_ref().and_then(|r| r.tool_name.as_deref())
    }

    /// How the message is marked: part of the task's input (`Some(true)`), a step
    /// (`Some(false)`), or left to the task's [`crate::stop::TaskInput`] (`None`). See
    /// [`Message::with_input`].
    #[must_use]
    pub fn input(&self) -> Option<bool> {
        self.rare.as_ref().and_then(|r| r.input)
    }

    /// Whether it is a stop message (see [`Message::as_stop`]).
    #[must_use]
    pub fn is_stop(&self) -> bool {
        self.rare.as_ref().is_some_and(|r| r.stop)
    }

    /// The agent it hands the conversation to, for a handoff.
    #[must_use]
    pub fn handoff(&self) -> Option<&str> {
        self.rare.as_ref().and_then(|r| r.handoff.as_deref())
    }

    /// Whether it is an agent event rather than a chat message, as AutoGen counts
    /// them: a message with tool calls (a tool-call request) or a tool's result.
    #[must_use]
    pub fn is_event(&self) -> bool {
        !self.tool_calls.is_empty() || self.role == Role::Agent
    }

    /// How long after the run's start it was recorded, if known.
    #[must_use]
    pub fn elapsed(&self) -> Option<std::time::Duration> {
        self.rare.as_ref().and_then(|r| r.elapsed)
    }

    /// Whether the step produced no valid response: it was built by
    /// [`Message::no_response`], or it is empty (blank content or Langroid's `PASS`,
    /// no tool calls, no error), which is Langroid's `_is_empty_message`.
    #[must_use]
    pub fn is_no_response(&self) -> bool {
        self.no_response
            || (self.tool_calls.is_empty()
                && self.error().is_none()
                && matches!(self.content.trim(), "" | "PASS"))
    }
}

#[cfg(all(test, feature = "json"))]
mod tests {
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};

    use super::{CallArguments, Cow, ToolCall};

    fn hash(call: &ToolCall<'_>) -> u64 {
        let mut h = DefaultHasher::new();
        call.hash(&mut h);
        h.finish()
    }

    /// A call whose arguments a log wrote as a string of JSON is the call of their
    /// decoded text: the same text asked for, equal, hashed alike, shown alike, and
    /// owned as that text.
    #[test]
    fn escaped_arguments_are_their_decoded_text() {
        let quoted = r#""{\"city\": \"Paris\", \"note\": \"caf\u00e9\"}""#;
        let text = r#"{"city": "Paris", "note": "café"}"#;
        let kept =
            ToolCall::with_arguments(Cow::Borrowed("weather"), CallArguments::Escaped(quoted))
                .with_id("c1");
        let decoded = ToolCall::new("weather", text).with_id("c1");
        assert_eq!(kept.arguments(), text);
        assert!(
            matches!(kept.arguments(), Cow::Owned(_)),
            "decoded when asked"
        );
        assert!(
            matches!(decoded.arguments(), Cow::Borrowed(_)),
            "not copied"
        );
        assert_eq!(kept, decoded);
        assert_eq!(hash(&kept), hash(&decoded));
        assert_eq!(format!("{kept:?}"), format!("{decoded:?}"));
        let owned = kept.clone().into_owned();
        assert!(matches!(owned.arguments, CallArguments::Owned(_)));
        assert_eq!(owned, decoded);
        // Other arguments are another call.
        let other = ToolCall::new("weather", r#"{"city": "Lyon"}"#).with_id("c1");
        assert_ne!(kept, other);
    }
}
