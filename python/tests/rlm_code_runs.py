"""Real rlm-code runs for the rlm-code format's tests: rlm-code's runner
(``RLMRunner.run_task``) with a scripted planner (offline) and rlm-code's own code
execution, its log as rlm-code writes it, and the same run written as doneseq's
JSONL from what the runner showed while it ran (its observability hooks' step
events), by the mapping the format documents."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

from rlm_code.execution.engine import ExecutionEngine
from rlm_code.rlm.runner import RLMRunner


class Planner:
    """A planner model that answers from a script, each answer with its tokens, and
    counts them as rlm-code's connectors do (``usage_snapshot``)."""

    def __init__(self, script: list[tuple[str, tuple[int, int]]]) -> None:
        self.script = list(script)
        self.usage = {"total_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}

    def generate_response(self, prompt: str, system_prompt: str | None = None, **_: Any) -> str:
        answer, (prompt_tokens, completion_tokens) = self.script.pop(0)
        self.usage["total_calls"] += 1
        self.usage["prompt_tokens"] += prompt_tokens
        self.usage["completion_tokens"] += completion_tokens
        return answer

    def usage_snapshot(self) -> dict[str, int]:
        return dict(self.usage)


class Watcher:
    """rlm-code's observability hooks, keeping the step events the runner reports
    and its result."""

    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = []
        self.result: Any = None

    def on_run_start(self, run_id: str, **_: Any) -> None:
        pass

    def on_step(self, run_id: str, event: dict[str, Any], **_: Any) -> None:
        self.steps.append(json.loads(json.dumps(event, default=str)))

    def on_run_end(self, run_id: str, result: Any, **_: Any) -> None:
        self.result = result

    def status(self) -> dict[str, Any]:
        return {}


def run(
    environment: str, script: list[tuple[str, tuple[int, int]]], directory: Path, **options: Any
) -> tuple[Path, Path, Watcher]:
    """The run's log as rlm-code wrote it, the same run as doneseq's JSONL, and what
    the runner reported."""
    planner = Planner(script)
    watcher = Watcher()
    runner = RLMRunner(
        llm_connector=planner,
        execution_engine=ExecutionEngine(),
        run_dir=directory / "runs",
        workdir=directory,
        observability=watcher,
    )
    if environment == "pure_rlm":
        # Its REPL in this process (rlm-code's own exec backend; Docker is its default).
        runner._pure_rlm_backend = "exec"
        runner._pure_rlm_allow_unsafe_exec = True
        with warnings.catch_warnings():
            # rlm-code's warning that exec() does not isolate: these scripts are ours.
            warnings.filterwarnings("ignore", "PureRLMEnvironment is using exec", UserWarning)
            runner.environments["pure_rlm"] = runner._build_pure_rlm_environment()
    runner.run_task("What is 6*7?", environment=environment, max_steps=6, **options)
    assert not planner.script, "the run did not take every scripted answer"
    messages = directory / "run.jsonl"
    lines = as_messages("What is 6*7?", watcher)
    messages.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return watcher.result.run_path, messages, watcher


def as_messages(task: str, watcher: Watcher) -> list[dict[str, Any]]:
    """The run as doneseq's JSONL: the task; each step the planner's turn (its text,
    its action as a call, the step's tokens) and the observation as the action's
    result (a code action's output, else the observation's JSON), failed with its
    error, with the step's reward; the answer of a completed run a stop."""
    out: list[dict[str, Any]] = [{"role": "user", "content": task}]
    for step in watcher.steps:
        action = step["action"]
        usage = step["usage"]
        out.append({
            "role": "llm",
            "content": step.get("planner_raw", ""),
            "tool_calls": [{"name": action["action"], "arguments": action}],
            "usage": {"input_tokens": usage["prompt_tokens"],
                      "output_tokens": usage["completion_tokens"]},
        })  # fmt: skip
        seen = step["observation"]
        text = seen.get("stdout")
        if text is None:
            text = json.dumps(seen, separators=(",", ":"))
        result: dict[str, Any] = {
            "role": "agent",
            "content": text,
            "tool_name": action["action"],
            "reward": step["reward"],
        }
        if seen.get("error"):
            result["error"] = seen["error"]
        elif seen.get("success") is False:
            result["error"] = seen.get("stderr") or "the action failed"
        out.append(result)
    if watcher.result.completed:
        out.append({"role": "agent", "content": watcher.result.final_response, "stop": True})
    return out
