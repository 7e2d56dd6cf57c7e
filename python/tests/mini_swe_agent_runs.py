"""Real mini-swe-agent runs for the mini-swe-agent format's tests: its
``DefaultAgent`` with a LiteLLM model (tool-calling, or text-based) run offline
against a scripted OpenAI Chat Completions API on the loopback interface, its
commands run for real by its ``LocalEnvironment``; its trajectory as mini-swe-agent
saves it, and the same run written as doneseq's JSONL from the script and what
mini-swe-agent sent the model (each command's output as the next request gave it), by
the mapping the format documents. Under mini-swe-agent 1 (``first``, its text-based
model and SWE-bench configuration, the trajectory saved as its runners save it) too.

``python mini_swe_agent_runs.py OUT [KIND]`` writes a run's trajectory to ``OUT``, of
a tool-calling model by default (how ``examples/formats/mini-swe-agent.traj.json``
was made; ``responses``: ``mini-swe-agent-responses.traj.json``; under
mini-swe-agent 1, its text-based model's: ``mini-swe-agent-1.traj.json``)."""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

# LiteLLM's prices from its own package, not fetched (offline).
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["MSWEA_SILENT_STARTUP"] = "1"

import minisweagent
import yaml
from minisweagent import config as configs
from minisweagent.agents.default import DefaultAgent
from minisweagent.environments.local import LocalEnvironment
from minisweagent.models.litellm_model import LitellmModel
from recorded_runs import completion, scripted_server

FIRST = minisweagent.__version__.startswith("1.")
"""mini-swe-agent 1 is installed (else 2)."""

TASK = "What is 17 times 23, plus 4? Then find the capital of France."

SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; echo 395, Paris"


@dataclass
class Turn:
    """A scripted model call: its text, the commands it runs (call id, command), the
    tokens it reports (input, output); ``tool`` names another tool than ``bash``
    (which mini-swe-agent refuses: a format error)."""

    usage: tuple[int, int]
    text: str = ""
    commands: list[tuple[str, str]] = field(default_factory=list)
    tool: str = "bash"

    def parses(self, textbased: bool) -> bool:
        """Whether mini-swe-agent takes the reply (else it is a format error)."""
        if textbased:
            return len(self.commands) == 1
        return bool(self.commands) and self.tool == "bash"

    def reply(self, textbased: bool) -> dict[str, Any]:
        """The call's answer, for ``recorded_runs.completion``: a text-based model's
        commands in its text (in the blocks its version's configuration asks for), a
        tool-calling model's as its calls."""
        if textbased:
            fence = "bash" if FIRST else "mswea_bash_command"
            blocks = "".join(f"\n\n```{fence}\n{c}\n```" for _, c in self.commands)
            return {"text": self.text + blocks, "usage": self.usage}
        calls = [(i, self.tool, {"command": c}) for i, c in self.commands]
        return {"text": self.text, "calls": calls, "usage": self.usage}

    def response(self, index: int) -> dict[str, Any]:
        """The call's answer as the Responses API gives it (a Responses model's): its
        text a message item, each command a ``function_call`` item."""
        items: list[dict[str, Any]] = []
        if self.text:
            content = [{"type": "output_text", "text": self.text, "annotations": []}]
            items.append(
                {"type": "message", "id": f"msg_{index}", "role": "assistant", "content": content}
            )
        for call_id, command in self.commands:
            items.append(
                {
                    "type": "function_call",
                    "id": f"fc_{call_id}",
                    "call_id": call_id,
                    "name": self.tool,
                    "arguments": json.dumps({"command": command}),
                    "status": "completed",
                }
            )
        usage = {
            "input_tokens": self.usage[0],
            "output_tokens": self.usage[1],
            "total_tokens": sum(self.usage),
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        return {
            "id": f"resp_{index}",
            "object": "response",
            "created_at": 1,
            "status": "completed",
            "model": "gpt-4o",
            "output": items,
            "usage": usage,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }


SCRIPTS = {
    "toolcall": [
        Turn((61, 22), "THOUGHT: the arithmetic first.", [("call_1", "echo $((17 * 23 + 4))")]),
        Turn((80, 9), "THOUGHT: a lookup.", [("call_2", "print('Paris')")], tool="python"),
        Turn(
            (97, 20),
            "THOUGHT: both at once.",
            [
                ("call_3", "echo Paris is the capital of France."),
                ("call_4", "echo the weather service is down >&2; exit 3"),
            ],
        ),
        Turn((130, 12), "THOUGHT: done.", [("call_5", SUBMIT)]),
    ],
    # mini-swe-agent 1's model is text-based.
    "first": [
        Turn((61, 22), "THOUGHT: the arithmetic first.", [("", "echo $((17 * 23 + 4))")]),
        Turn((80, 9), "THOUGHT: I know it is Paris."),
        Turn((97, 20), "THOUGHT: the weather.", [("", "echo the service is down >&2; exit 3")]),
        Turn((130, 12), "THOUGHT: done.", [("", SUBMIT)]),
    ],
    "textbased": [
        Turn((61, 22), "THOUGHT: the arithmetic first.", [("", "echo $((17 * 23 + 4))")]),
        Turn((80, 9), "THOUGHT: I know it is Paris."),
        Turn((97, 20), "THOUGHT: the weather.", [("", "echo the service is down >&2; exit 3")]),
        Turn((130, 12), "THOUGHT: done.", [("", SUBMIT)]),
    ],
}
"""The model's calls, in order: a command; a reply mini-swe-agent refuses (a call of
another tool; no command); commands, one failing; the submission."""

# A Responses API model's: the tool-calling model's calls, the third without text (a
# response of calls only).
SCRIPTS["responses"] = [
    replace(turn, text="") if i == 2 else turn for i, turn in enumerate(SCRIPTS["toolcall"])
]


@dataclass
class Run:
    """A trajectory as mini-swe-agent saved it, the same run as doneseq's JSONL, and
    what ``agent.run()`` returned (its exit status, its submission), of the script of
    ``kind``."""

    kind: str
    trajectory: Path
    messages: Path
    result: dict[str, Any]


def run(directory: Path, kind: str = "toolcall", step_limit: int = 0) -> Run:
    """A run of the script of ``kind`` (its work directory and files in
    ``directory``), stopped by mini-swe-agent's ``step_limit`` if not 0."""
    textbased = kind not in ("toolcall", "responses")
    script = SCRIPTS[kind]
    answers = enumerate(script)
    trajectory = directory / "run.traj.json"
    work = directory / "work"
    work.mkdir()

    def answer(_: Any) -> dict[str, Any]:
        index, turn = next(answers)
        return turn.response(index) if kind == "responses" else completion(turn.reply(textbased))

    with scripted_server(answer) as (url, requests):
        model_kwargs = {"api_base": f"{url}/v1", "api_key": "sk-offline"}
        if FIRST:
            agent, result = run_first(work, model_kwargs, step_limit, trajectory)
        else:
            agent, result = run_current(kind, work, model_kwargs, step_limit, trajectory)
    # What the next request would have given the model: the agent's messages, as its
    # model sends them (mini-swe-agent 2's without its `extra`, a response flattened
    # into its items; 1's, each message's role and content), but the run's end.
    kept = agent.messages[:-1] if ended(agent.messages, result) else agent.messages
    if FIRST:
        following = [{"role": m["role"], "content": m["content"]} for m in kept]
    else:
        following = agent.model._prepare_messages_for_api(kept)
    sent = [*requests, {"input" if kind == "responses" else "messages": following}]
    messages = directory / "messages.jsonl"
    lines = written(script[: len(requests)], textbased, sent, result)
    messages.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return Run(kind, trajectory, messages, result)


def ended(messages: list[dict[str, Any]], result: dict[str, Any]) -> bool:
    """Whether the run's last message is its end: mini-swe-agent 2's exit, or the
    message mini-swe-agent 1 adds when it submits or reaches a limit."""
    if FIRST:
        return result["exit_status"] in ("Submitted", "LimitsExceeded")
    return messages[-1].get("role") == "exit"


def run_current(
    kind: str, work: Path, model_kwargs: dict[str, Any], step_limit: int, trajectory: Path
) -> tuple[Any, dict[str, Any]]:
    """mini-swe-agent 2's agent with its ``mini`` configuration (tool-calling, of Chat
    Completions or of the Responses API, or text-based), which saves the trajectory
    itself: the agent, and what it returned."""
    from minisweagent.models.litellm_response_model import LitellmResponseModel
    from minisweagent.models.litellm_textbased_model import LitellmTextbasedModel

    config = "mini_textbased.yaml" if kind == "textbased" else "mini.yaml"
    agent_config = yaml.safe_load((Path(configs.__file__).parent / config).read_text())["agent"]
    model_class = {
        "toolcall": LitellmModel,
        "responses": LitellmResponseModel,
        "textbased": LitellmTextbasedModel,
    }[kind]
    model = model_class(model_name="openai/gpt-4o", model_kwargs=model_kwargs)
    agent = DefaultAgent(
        model,
        LocalEnvironment(cwd=str(work)),
        **(agent_config | {"step_limit": step_limit, "output_path": trajectory}),
    )
    return agent, agent.run(TASK)


def run_first(
    work: Path, model_kwargs: dict[str, Any], step_limit: int, trajectory: Path
) -> tuple[Any, dict[str, Any]]:
    """mini-swe-agent 1's agent with its SWE-bench configuration, the trajectory saved
    as its runners save it (``save_traj``): the agent, and what it returned."""
    from minisweagent.run.utils.save import save_traj

    path = Path(configs.__file__).parent / "extra" / "swebench.yaml"
    agent_config = yaml.safe_load(path.read_text())["agent"]
    model = LitellmModel(model_name="openai/gpt-4o", model_kwargs=model_kwargs)
    environment = LocalEnvironment(cwd=str(work))
    agent = DefaultAgent(model, environment, **(agent_config | {"step_limit": step_limit}))
    exit_status, result = agent.run(TASK)
    save_traj(agent, trajectory, exit_status=exit_status, result=result, print_path=False)
    return agent, {"exit_status": exit_status, "submission": result}


def written(
    script: list[Turn], textbased: bool, requests: list[Any], result: dict[str, Any]
) -> list[dict[str, Any]]:
    """The run as doneseq's JSONL: what mini-swe-agent gave the model first (its
    system message and the task); each call of the script (its text, its commands as
    calls of ``bash``, its usage) and what the next request (``requests``, and what
    would have been the next after the last) added after it (each
    command's output, failed where its return code is not 0; what mini-swe-agent told
    the model when it refused the reply); the submission, a stop."""
    lines: list[dict[str, Any]] = []
    for message in sent_items(requests[0]):
        lines.append({"role": message["role"], "content": message["content"]})
    for i, turn in enumerate(script):
        reply = turn.reply(textbased)
        calls = [{"id": c or None, "name": n, "arguments": a} for c, n, a in reply.get("calls", [])]
        if textbased and turn.parses(textbased):
            calls = [{"name": "bash", "arguments": {"command": c}} for _, c in turn.commands]
        lines.append(
            {
                "role": "llm",
                "content": reply["text"],
                "tool_calls": calls,
                "usage": {"input_tokens": turn.usage[0], "output_tokens": turn.usage[1]},
            }
        )
        before, after = sent_items(requests[i]), sent_items(requests[i + 1])
        # Less the model's own message or items (mini-swe-agent 2 leaves a reply it
        # refused out).
        added = [m for m in after[len(before) :] if not models(m)]
        if turn.parses(textbased):
            lines.extend(output(message) for message in added)
        else:
            (refused,) = added
            lines.append({"role": "user", "content": text_of(refused["content"])})
    if result["exit_status"] == "Submitted":
        submission = result["submission"]
        lines.append({"role": "agent", "content": submission, "tool_name": "bash", "stop": True})
    return lines


def sent_items(request: dict[str, Any]) -> list[dict[str, Any]]:
    """What a request gave the model: its messages (Chat Completions), or its input
    items (the Responses API)."""
    return request["messages"] if "messages" in request else request["input"]


def models(item: dict[str, Any]) -> bool:
    """Whether a message or input item is the model's own (its message, its call)."""
    return item.get("role") == "assistant" or item.get("type") in ("function_call", "reasoning")


def text_of(content: Any) -> str:
    """A message's text: a string, or its text parts' joined."""
    if isinstance(content, str):
        return content
    return "\n".join(part["text"] for part in content)


def output(message: dict[str, Any]) -> dict[str, Any]:
    """A command's output as the model was shown it: a result of ``bash``, failed
    where the return code shown is not 0."""
    if message.get("type") == "function_call_output":
        text, call_id = message["output"], message["call_id"]
    else:
        text, call_id = message["content"], message.get("tool_call_id")
    line = {"role": "agent", "content": text, "tool_name": "bash"}
    if call_id:
        line["tool_call_id"] = call_id
    code = re.search(r"<returncode>(-?\d+)</returncode>", text)
    assert code, message
    if code[1] != "0":
        line["error"] = f"exited with {code[1]}"
    return line


if __name__ == "__main__":
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        kind = sys.argv[2] if len(sys.argv) > 2 else "first" if FIRST else "toolcall"
        made = run(Path(scratch), kind)
        shutil.copy(made.trajectory, sys.argv[1])
