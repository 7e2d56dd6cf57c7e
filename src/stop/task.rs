//! `TaskConfig`: Langroid's termination options and a stop tree, as one
//! serde-configurable value, and their lowering into one condition tree.

use std::collections::BTreeMap;

use super::{Condition, Speaker, TaskInput, ToolCalled};
use crate::{DoneSequences, ListError, Role, ToolName};

/// A task's termination options, named and defaulted as Langroid's `TaskConfig` and
/// `Task` parameters (see the README's "Task options").
///
/// With the `serde` feature it deserializes from an object with these field names;
/// every field is optional and an unknown field is an error (Langroid's pydantic
/// model silently drops one, so `TaskConfig(max_turns=...)` sets nothing there):
///
/// ```
/// # #[cfg(feature = "json")] {
/// use doneseq::{Role, TaskConfig};
///
/// let config: TaskConfig = serde_json::from_str(r#"{
///     "done_sequences": ["T[calculator], A"],
///     "done_if_response": ["llm"],
///     "max_turns": 10
/// }"#)?;
/// assert_eq!(config.done_if_response, [Role::Llm]);
/// assert!(config.recognize_string_signals); // Langroid's default
///
/// let err = serde_json::from_str::<TaskConfig>(r#"{"max_turn": 10}"#).unwrap_err();
/// assert!(err.to_string().contains("unknown field `max_turn`"));
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
// `remote = "Self"`: the derives become inherent functions, which the trait impls
// below wrap, so that the whole configuration is one regex parse.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(remote = "Self", default, deny_unknown_fields)
)]
#[non_exhaustive]
pub struct TaskConfig {
    /// The done sequences, tried in order; the first that matches ends the task.
    pub done_sequences: DoneSequences,
    /// Done as soon as the LLM emits any tool call (checked before the sequences).
    pub done_if_tool: bool,
    /// Done when one of these roles gives a valid (non-empty) response.
    pub done_if_response: Vec<Role>,
    /// Done when one of these roles is asked and gives no valid response.
    pub done_if_no_response: Vec<Role>,
    /// Done after the first step (after the first two with
    /// [`TaskConfig::llm_delegate`]), as Langroid's `single_round` ends the task one
    /// round after its input.
    pub single_round: bool,
    /// The LLM is the task's controller (Langroid's `llm_delegate`): a single round
    /// is its question and the reply to it, two steps.
    pub llm_delegate: bool,
    /// The task is exhausted after this many steps, unless something else ended it
    /// on that step (Langroid checks turns after `done()`). `None` (or a negative
    /// number in serde, Langroid's `-1`) is no limit.
    #[cfg_attr(feature = "serde", serde(deserialize_with = "max_turns"))]
    pub max_turns: Option<u64>,
    /// Done when a non-empty message contains the word `DONE` (case-sensitive).
    /// Langroid's default, `true`.
    pub recognize_string_signals: bool,
    /// A stop condition tree evaluated after every step, beside the options above.
    /// See [`crate::stop`].
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub stop: Option<Condition>,
    /// Tool class names and the request names they stand for (`{"EditTool":
    /// "submit_edit"}`), so that `T[EditTool]` means `T[submit_edit]` as in Langroid,
    /// whose docs write tools by class. A `T[name]` resolves as Langroid resolves it:
    /// a request name (a value here, or of Langroid's orchestration tools) stays;
    /// otherwise a class name here, then one of Langroid's orchestration tools
    /// (`DoneTool` is `done_tool`, `ForwardTool` `forward_tool`, ...; see
    /// [`ORCHESTRATION_TOOLS`]) gives its request name; otherwise the name is taken as
    /// written.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "BTreeMap::is_empty"))]
    pub tool_classes: BTreeMap<String, String>,
    /// Which messages are the task's input, not steps: by default the user messages
    /// before the first response, as Langroid never counts or matches the message
    /// given to `run()`. See [`TaskInput`].
    pub input: TaskInput,
}

/// The request name `T[name]` stands for under `classes` (class name to request
/// name) and Langroid's orchestration tools; `None` keeps the name. The one place of
/// Langroid's resolution rule.
pub(crate) fn tool_request<'a>(
    classes: &'a BTreeMap<String, String>,
    name: &str,
) -> Option<&'a str> {
    let is_request =
        classes.values().any(|r| r == name) || ORCHESTRATION_TOOLS.iter().any(|(_, r)| *r == name);
    if is_request {
        return None;
    }
    classes.get(name).map(String::as_str).or_else(|| {
        ORCHESTRATION_TOOLS
            .iter()
            .find(|(class, _)| *class == name)
            .map(|(_, request)| *request)
    })
}

/// The orchestration tools every Langroid `ChatAgent` knows: class name and request
/// name.
pub const ORCHESTRATION_TOOLS: [(&str, &str); 8] = [
    ("ForwardTool", "forward_tool"),
    ("DoneTool", "done_tool"),
    ("AgentDoneTool", "agent_done_tool"),
    ("PassTool", "pass_tool"),
    ("DonePassTool", "done_pass_tool"),
    ("SendTool", "send_tool"),
    ("AgentSendTool", "agent_send_tool"),
    ("ResultTool", "result_tool"),
];

#[cfg(feature = "serde")]
impl serde::Serialize for TaskConfig {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        TaskConfig::serialize(self, serializer)
    }
}

/// The done sequences and the stop condition share one regex scope: the regexes of a
/// whole configuration are within `MAX_REGEX_MEMORY` and `MAX_REGEX_FOLD_WORK`
/// together, and a regex written in both is compiled once.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for TaskConfig {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<TaskConfig, D::Error> {
        crate::text::scoped(|| TaskConfig::deserialize(deserializer))
    }
}

impl Default for TaskConfig {
    fn default() -> TaskConfig {
        TaskConfig {
            done_sequences: DoneSequences::default(),
            done_if_tool: false,
            done_if_response: Vec::new(),
            done_if_no_response: Vec::new(),
            single_round: false,
            llm_delegate: false,
            max_turns: None,
            recognize_string_signals: true,
            stop: None,
            tool_classes: BTreeMap::new(),
            input: TaskInput::Leading,
        }
    }
}

impl TaskConfig {
    /// The request name `T[name]` stands for, if it is a tool class name (see
    /// [`TaskConfig::tool_classes`]); `None` keeps the name as written.
    ///
    /// ```
    /// use doneseq::TaskConfig;
    ///
    /// let mut config = TaskConfig::default();
    /// config.tool_classes.insert("EditTool".into(), "submit_edit".into());
    /// assert_eq!(config.tool_request("EditTool"), Some("submit_edit"));
    /// assert_eq!(config.tool_request("DoneTool"), Some("done_tool"));
    /// assert_eq!(config.tool_request("submit_edit"), None); // a request name stays
    /// assert_eq!(config.tool_request("search"), None);
    /// ```
    #[must_use]
    pub fn tool_request(&self, name: &str) -> Option<&str> {
        tool_request(&self.tool_classes, name)
    }

    /// The request name of each class, checked: a request name must be a valid tool
    /// name.
    pub(crate) fn tool_requests(&self) -> Result<(), (String, String)> {
        for (class, request) in &self.tool_classes {
            if class.is_empty() || ToolName::new(request).is_err() {
                return Err((class.clone(), request.clone()));
            }
        }
        Ok(())
    }

    /// A configuration with these done sequences and Langroid's defaults otherwise.
    ///
    /// # Errors
    ///
    /// The first sequence that does not parse, with its index.
    pub fn from_dsl<I>(texts: I) -> Result<TaskConfig, ListError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        Ok(TaskConfig {
            done_sequences: DoneSequences::parse_all(texts)?,
            ..TaskConfig::default()
        })
    }

    /// The options as conditions, in Langroid's order: `done_if_tool` (`tool`), each
    /// done sequence (`seq(...)`), the `DONE` signal (`done_signal`),
    /// `done_if_response` (`response(...)`), `done_if_no_response`
    /// (`no_response(...)`), `single_round` and `max_turns(n)`. Options that are off
    /// give nothing.
    pub(crate) fn rules(&self) -> Vec<(Rule, Condition)> {
        let mut rules = Vec::new();
        if self.done_if_tool {
            rules.push((Rule::DoneIfTool, Condition::Tool(ToolCalled::default())));
        }
        for (i, sequence) in self.done_sequences.iter().enumerate() {
            rules.push((Rule::Sequence(i), Condition::Sequence(sequence.clone())));
        }
        if self.recognize_string_signals {
            rules.push((Rule::StringSignal, Condition::DoneSignal));
        }
        let speakers = |roles: &[Role]| roles.iter().copied().map(Speaker::Role).collect();
        if !self.done_if_response.is_empty() {
            let from = speakers(&self.done_if_response);
            rules.push((Rule::DoneIfResponse, Condition::Response(from)));
        }
        if !self.done_if_no_response.is_empty() {
            let from = speakers(&self.done_if_no_response);
            rules.push((Rule::DoneIfNoResponse, Condition::NoResponse(from)));
        }
        if self.single_round {
            let llm_delegate = self.llm_delegate;
            rules.push((Rule::SingleRound, Condition::SingleRound { llm_delegate }));
        }
        if let Some(max) = self.max_turns {
            rules.push((Rule::MaxTurns(max), Condition::MaxTurns(max)));
        }
        rules
    }

    /// The whole task as one condition: `any(` the options' conditions in Langroid's
    /// order, then the stop tree, then `cancelled` (a run's
    /// cancel handle is always honoured) `)`. This is what a [`crate::Monitor`]
    /// evaluates, and what [`crate::Monitor::condition`] shows.
    ///
    /// ```
    /// use doneseq::{Role, TaskConfig};
    ///
    /// let mut config = TaskConfig::from_dsl(["T[calculator], A"])?;
    /// config.done_if_response = vec![Role::Llm];
    /// config.max_turns = Some(10);
    /// config.stop = Some("tokens(5000)".parse()?);
    /// assert_eq!(
    ///     config.lowered().to_string(),
    ///     r#"seq("T[calculator], A") | done_signal | response([llm]) | max_turns(10) | tokens(5000) | cancelled"#,
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn lowered(&self) -> Condition {
        TaskConfig::lower(self.rules().into_iter().map(|(_, c)| c), self.stop.clone())
    }

    /// `any(rules..., stop, cancelled)`: the one place the lowered tree's shape is
    /// written.
    pub(crate) fn lower(
        rules: impl Iterator<Item = Condition>,
        stop: Option<Condition>,
    ) -> Condition {
        Condition::Any(rules.chain(stop).chain([Condition::Cancelled]).collect())
    }
}

/// The task options that lower into conditions, and the cancel handle: what a
/// condition of the lowered tree stands for when it did not come from the stop tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    DoneIfTool,
    /// The task's done sequence with this index.
    Sequence(usize),
    StringSignal,
    DoneIfResponse,
    DoneIfNoResponse,
    SingleRound,
    MaxTurns(u64),
    /// The run's cancel handle, honoured whatever the tree says.
    Cancel,
}

#[cfg(feature = "serde")]
/// `max_turns`: a count, or `null` / a negative number (Langroid's `-1`) for none.
fn max_turns<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    let turns: Option<i64> = serde::Deserialize::deserialize(deserializer)?;
    Ok(turns.and_then(|t| u64::try_from(t).ok()))
}
