"""doneseq.langroid against Langroid itself: real ``Task.run()``s of a ChatAgent on
Langroid's MockLM, with real ToolMessages (as JSON in the content and as OpenAI tool
calls), compared with plain Langroid's own stop on the same script.

Offline: ``import langroid`` loads tiktoken's ``cl100k_base`` encoding, which tiktoken
downloads. A small byte-level encoding is registered under that name before Langroid
is imported (token counts are then bytes, which nothing here reads)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import tiktoken
import tiktoken.registry

tiktoken.registry.ENCODINGS["cl100k_base"] = tiktoken.Encoding(
    name="cl100k_base",
    pat_str=r"\S+|\s+",
    mergeable_ranks={bytes([i]): i for i in range(256)},
    special_tokens={"<|endoftext|>": 256},
)

import langroid as lr  # noqa: E402
import pytest  # noqa: E402
from framework_table import assert_listed  # noqa: E402
from langroid.agent.chat_document import ChatDocument, StatusCode  # noqa: E402
from langroid.agent.task import TaskConfig  # noqa: E402
from langroid.language_models.base import (  # noqa: E402
    LLMFunctionCall,
    LLMResponse,
    OpenAIToolCall,
)
from langroid.language_models.mock_lm import MockLM, MockLMConfig  # noqa: E402
from langroid.utils.output.printing import shorten_text  # noqa: E402
from recorded_runs import replayed  # noqa: E402

import doneseq  # noqa: E402
from doneseq.langroid import DoneseqTask, DoneseqTaskConfig, to_message  # noqa: E402


class CalculatorTool(lr.ToolMessage):
    request: str = "calculator"
    purpose: str = "To compute an <expression>."
    expression: str

    def handle(self) -> str:
        if self.expression == "1/0":
            return "ERROR: division by zero"
        return str(eval(self.expression, {"__builtins__": {}}, {}))


def tool_json(expression: str) -> str:
    return CalculatorTool(expression=expression).to_json()


class ScriptedLM(MockLM):
    """Langroid's MockLM, answering from a script: a text, a calculator call as an
    OpenAI tool call (its arguments), or several calls in parallel (a list of them)."""

    def __init__(self, script: list[Any]) -> None:
        super().__init__(MockLMConfig(default_response="(script ended)"))
        self.script = list(script)
        self.calls = 0

    def _next(self) -> LLMResponse:
        self.calls += 1
        item = self.script.pop(0) if self.script else "(script ended)"
        if isinstance(item, dict):  # an OpenAI tool call
            item = [item]
        if isinstance(item, list):  # OpenAI tool calls, in parallel
            calls = [
                OpenAIToolCall(
                    id=f"call_{self.calls}_{i}",
                    function=LLMFunctionCall(name="calculator", arguments=arguments),
                )
                for i, arguments in enumerate(item)
            ]
            return LLMResponse(message="", oai_tool_calls=calls, cached=False)
        return LLMResponse(message=item, cached=False)

    def chat(self, messages: Any, *args: Any, **kwargs: Any) -> LLMResponse:
        return self._next()

    async def achat(self, messages: Any, *args: Any, **kwargs: Any) -> LLMResponse:
        return self._next()


def agent(script: list[Any], tools_api: bool = False) -> lr.ChatAgent:
    config = lr.ChatAgentConfig(
        name="calc",
        llm=MockLMConfig(),
        use_tools_api=tools_api,
        use_functions_api=tools_api,
        use_tools=not tools_api,
    )
    a = lr.ChatAgent(config)
    a.enable_message(CalculatorTool)
    a.llm = ScriptedLM(script)
    return a


def both(
    script: list[Any],
    sequences: list[Any],
    tools_api: bool = False,
    **task: Any,
) -> tuple[tuple[ChatDocument | None, DoneseqTask, ScriptedLM], tuple[Any, Any, ScriptedLM]]:
    """The same script run by a DoneseqTask and by a plain Langroid Task."""
    ours_agent = agent(script, tools_api)
    ours = DoneseqTask(
        ours_agent,
        interactive=False,
        config=DoneseqTaskConfig(done_sequences=sequences),
        **task,
    )
    theirs_agent = agent(script, tools_api)
    theirs = lr.Task(
        theirs_agent, interactive=False, config=TaskConfig(done_sequences=sequences), **task
    )
    ours_result = ours.run("What is 6*7?", turns=12)
    theirs_result = theirs.run("What is 6*7?", turns=12)
    return (ours_result, ours, ours_agent.llm), (theirs_result, theirs, theirs_agent.llm)


def status(result: ChatDocument | None) -> StatusCode | None:
    return None if result is None else result.metadata.status


SCRIPT = [tool_json("6*7"), "The answer is 42.", "Anything else?", "Bye."]


@pytest.fixture(autouse=True)
def _logs_elsewhere(tmp_path, monkeypatch):
    # Langroid writes its task logs under the working directory.
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize(
    "script,tools_api",
    [(SCRIPT, False), ([{"expression": "6*7"}, *SCRIPT[1:]], True)],
    ids=["tool JSON in content", "OpenAI tool calls"],
)
def test_a_done_sequence_stops_where_langroid_stops(script, tools_api):
    (ours_result, ours, ours_lm), (theirs_result, _, theirs_lm) = both(
        script, ["T[calculator], A"], tools_api
    )
    assert ours.outcome is not None
    assert (ours.outcome.kind, ours.outcome.sequence) == ("done", 0)
    # The run's input is not a step: the tool call is step 0, its result step 1.
    assert ours.outcome.matched == (0, 1)
    assert ours.outcome.answer == "42"
    assert status(ours_result) == status(theirs_result) == StatusCode.DONE
    assert ours_result is not None and theirs_result is not None
    assert ours_result.content == theirs_result.content == "42"
    assert ours_lm.calls == theirs_lm.calls == 1


def test_a_tool_named_by_its_class_resolves_as_langroid_resolves_it():
    (ours_result, ours, ours_lm), (theirs_result, _, theirs_lm) = both(
        SCRIPT, ["T[CalculatorTool], A"]
    )
    assert ours.monitor.done_sequences == ["T[calculator], A"]
    assert ours.outcome is not None and ours.outcome.kind == "done"
    assert ours_lm.calls == theirs_lm.calls == 1
    assert status(ours_result) == status(theirs_result) == StatusCode.DONE


def test_langroid_sequence_objects_are_accepted():
    from langroid.agent.done_sequence_parser import parse_done_sequence

    sequence = parse_done_sequence("T[calculator], A")
    (_, ours, ours_lm), (_, _, theirs_lm) = both(SCRIPT, [sequence])
    assert ours.monitor.done_sequences == ["T[calculator], A"]
    assert ours.outcome is not None and ours_lm.calls == theirs_lm.calls == 1


def test_doneseqs_extensions_where_langroid_has_none():
    # A failed call does not count: only a result without an error... here, a result
    # whose content is not the tool's error text.
    script = [tool_json("1/0"), tool_json("6*7"), "The answer is 42.", "Bye."]
    task = DoneseqTask(
        agent(script),
        interactive=False,
        config=DoneseqTaskConfig(done_sequences=["T[calculator], A & !C[^ERROR]"]),
    )
    result = task.run("What is 6*7?", turns=12)
    assert task.outcome is not None and task.outcome.answer == "42"
    assert result is not None and result.content == "42"
    # Langroid's own parser refuses the extension.
    with pytest.raises(ValueError):
        lr.Task(
            agent(script),
            interactive=False,
            config=TaskConfig(done_sequences=["T[calculator], A & !C[^ERROR]"]),
        )


def test_a_stop_condition_and_its_status_code():
    script = [tool_json("6*7"), "FINAL('42')", "More."]
    task = DoneseqTask(agent(script), interactive=False, config=DoneseqTaskConfig(stop="final"))
    result = task.run("What is 6*7?", turns=12)
    assert task.outcome is not None
    assert (task.outcome.kind, task.outcome.answer, task.outcome.condition) == (
        "done",
        "42",
        "final",
    )
    assert status(result) == StatusCode.DONE
    task = DoneseqTask(
        agent([tool_json("1+1"), tool_json("2+2"), tool_json("3+3"), "done"]),
        interactive=False,
        config=DoneseqTaskConfig(stop="max_turns(3)"),
    )
    result = task.run("Go.", turns=12)
    assert task.outcome is not None
    assert (task.outcome.kind, task.outcome.at) == ("exhausted", 2)
    # MAX_TURNS: Langroid's run() then returns no result (it does for its own limit
    # too); the outcome keeps the partial answer.
    assert result is None and task.outcome.answer_source in ("partial", None)


def test_langroids_own_rules_still_apply():
    # The DONE string is Langroid's: doneseq does not decide it here.
    script = [tool_json("6*7"), "DONE 42", "More."]
    task = DoneseqTask(
        agent(script), interactive=False, config=DoneseqTaskConfig(stop="max_turns(10)")
    )
    result = task.run("Go.", turns=12)
    assert task.outcome is None
    assert result is not None and result.content == "42"
    # Langroid's turn limit still ends the run.
    task = DoneseqTask(agent(["a"] * 20), interactive=False, config=DoneseqTaskConfig())
    task.run("Go.", turns=3)
    assert task.outcome is None


def test_every_run_starts_clean_and_clones_are_doneseq_tasks():
    script = [tool_json("6*7"), tool_json("2*3"), "Bye."]
    task = DoneseqTask(
        agent(script),
        interactive=False,
        config=DoneseqTaskConfig(done_sequences=["T[calculator], A"]),
    )
    first = task.run("What is 6*7?", turns=12)
    assert first is not None and first.content == "42"
    # Langroid keeps its response_sequence across runs; doneseq starts over, so the
    # second run needs its own call and result.
    second = task.run("And 2*3?", turns=12)
    assert task.outcome is not None and task.outcome.matched == (0, 1)
    assert second is not None and second.content == "6"
    clone = task.clone(1)
    assert isinstance(clone, DoneseqTask)
    assert clone.monitor.lowered == task.monitor.lowered


def test_run_async():
    task = DoneseqTask(
        agent(SCRIPT),
        interactive=False,
        config=DoneseqTaskConfig(done_sequences=["T[calculator], A"]),
    )
    result = asyncio.run(task.run_async("What is 6*7?", turns=12))
    assert task.outcome is not None and task.outcome.answer == "42"
    assert result is not None and result.content == "42"


def test_what_if_calls_change_nothing():
    task = DoneseqTask(
        agent(SCRIPT),
        interactive=False,
        config=DoneseqTaskConfig(done_sequences=["T[calculator], A"]),
    )
    task.run("What is 6*7?", turns=12)
    steps = task._doneseq_run.steps
    candidate = ChatDocument(content="x", metadata={"sender": lr.Entity.LLM})
    check: Callable[..., Any] = task.valid
    for _ in range(5):
        check(candidate, lr.Entity.LLM)
    assert task._doneseq_run.steps == steps


def test_bad_sequences_are_doneseq_errors():
    with pytest.raises(doneseq.DslError):
        DoneseqTask(agent([]), interactive=False, config=DoneseqTaskConfig(done_sequences=["T A"]))
    with pytest.raises(doneseq.StopExprError):
        DoneseqTask(agent([]), interactive=False, config=DoneseqTaskConfig(stop="max_turn(3)"))


def sub_task_run(task_class: Any, config: Any) -> tuple[ChatDocument | None, Any]:
    main = lr.ChatAgent(
        lr.ChatAgentConfig(
            name="main", llm=MockLMConfig(response_fn=lambda _: "please compute 6*7")
        )
    )
    sub = lr.ChatAgent(
        lr.ChatAgentConfig(name="calc", llm=MockLMConfig(response_fn=lambda _: "42"))
    )
    task = task_class(main, name="main", interactive=False, config=config)
    task.add_sub_task(lr.Task(sub, name="calc", interactive=False, single_round=True))
    return task.run("go", turns=6), task


def test_a_sub_tasks_result_is_the_sub_tasks_response():
    from langroid.agent.done_sequence_parser import AgentEvent, DoneSequence, EventType

    def sequence(sender: str) -> DoneSequence:
        return DoneSequence(
            name="sub",
            events=[
                AgentEvent(event_type=EventType.LLM_RESPONSE),
                AgentEvent(event_type=EventType.USER_RESPONSE, sender=sender),
            ],
        )

    ours, ours_task = sub_task_run(
        DoneseqTask, DoneseqTaskConfig(done_sequences=[sequence("calc")])
    )
    theirs, _ = sub_task_run(lr.Task, TaskConfig(done_sequences=[sequence("calc")]))
    # A sub-task's result comes back as a user response from the sub-task, in both.
    assert ours_task.monitor.done_sequences == ["sub: L, U@calc"]
    assert ours_task.outcome is not None and ours_task.outcome.matched == (0, 1)
    assert ours is not None and theirs is not None
    assert ours.content == theirs.content == "42"
    # Another sub-task's name does not match.
    _, other = sub_task_run(DoneseqTask, DoneseqTaskConfig(done_sequences=[sequence("other")]))
    assert other.outcome is None


def logged_run(sequences: list[str]) -> tuple[ChatDocument | None, Any, Any]:
    """A Langroid task (`calc`) whose first tool call fails, then asks its sub-task
    (`helper`: two OpenAI tool calls at once, then `DONE 42`), whose result comes back
    as the user's, then answers at length (which Langroid's log shortens); with no
    sequence that ends it, the steps after find no valid response (the helper runs
    again each time, to no avail), until Langroid gives up. Its log is
    `logs/calc.tsv`."""
    helper = lr.Task(
        agent([[{"expression": "6*7"}, {"expression": "1+1"}], "DONE 42"], tools_api=True),
        name="helper",
        interactive=False,
        max_stalled_steps=1,
    )
    answer = "The answer is 42.\nHow:\n" + " ".join(f"step {i} multiplies;" for i in range(30))
    script = [tool_json("1/0"), tool_json("6*7"), "Helper, please check 6*7.", answer]
    task = lr.Task(
        agent(script),
        name="calc",
        interactive=False,
        max_stalled_steps=2,
        config=TaskConfig(done_sequences=sequences),
    )
    task.add_sub_task(helper)
    return task.run("What is 6*7?", turns=20), task, helper


def test_langroids_own_log_reads_as_its_response_sequence():
    # Stalled to the end: the pending message logged again at each stalled step is
    # not a new step, nor are the attempts or the sub-task's own lines.
    result, task, helper = logged_run([])
    assert result is None
    monitor = doneseq.Monitor(done_sequences=["T[calculator], A, L, U@helper, L"])
    replay = replayed(monitor, {Path("logs/calc.tsv"): "langroid-tsv"})
    assert replay["recorded_steps"] == len(task.response_sequence) == 7
    # doneseq stops at the last step, where Langroid would have (the next test).
    assert (replay["kind"], replay["steps"]) == ("done", 7)
    assert replay["answer"] == shorten_text(task.response_sequence[-1].content, 80)
    assert replay["answer"].startswith("The answer is 42. How: step 0")
    assert "..." in replay["answer"]
    # Another sub-task's name does not match.
    other = doneseq.Monitor(done_sequences=["T[calculator], A, L, U@other, L"])
    assert replayed(other, {Path("logs/calc.tsv"): "langroid-tsv"})["kind"] is None
    # The sub-task's own lines (with the header) are its log: each run's input is not
    # a step, so its steps are its response_sequence (which Langroid keeps across
    # runs) whatever the runs.
    lines = Path("logs/calc.tsv").read_text().splitlines(keepends=True)
    own = [line for i, line in enumerate(lines) if i == 0 or line.split("\t")[1] == "helper"]
    Path("helper.tsv").write_text("".join(own))
    replay = replayed(doneseq.Monitor(), {Path("helper.tsv"): "langroid-tsv"})
    assert replay["recorded_steps"] == len(helper.response_sequence) == 5


def test_a_done_sequence_stops_langroids_own_log_where_langroid_stopped():
    # (Langroid's parser has no `U@helper`: its sequences name no responder.)
    sequence = "T[calculator], A, L, U, L"
    result, task, _ = logged_run([sequence])
    assert result is not None and status(result) == StatusCode.DONE
    replay = replayed(
        doneseq.Monitor(done_sequences=[sequence]), {Path("logs/calc.tsv"): "langroid-tsv"}
    )
    assert (replay["kind"], replay["steps"]) == ("done", len(task.response_sequence))
    assert replay["answer"] == shorten_text(result.content, 80)


ROLES = {"LLM": "assistant", "Agent": "agent", "User": "user"}


@pytest.mark.parametrize(
    "options, turns",
    [
        ({"single_round": True}, -1),
        ({"single_round": True, "llm_delegate": True}, -1),
        ({}, 1),
        ({}, 2),
        ({}, 3),
    ],
)
def test_a_recorded_chat_log_stops_where_langroid_stopped(options, turns):
    # Langroid itself runs the task; its run is then written as a chat log (system
    # prompt, the task's input, one message per step) and replayed through doneseq
    # with the same options: the task's input is not a step, so the replay stops
    # at the log's last message, where Langroid stopped.
    a = agent([tool_json("6*7"), "The answer is 42.", "Anything else?", "Bye."])
    task = lr.Task(a, interactive=False, **options)
    result = task.run("What is 6*7?", turns=turns)
    assert result is not None and result.metadata.status == StatusCode.FIXED_TURNS
    steps = [
        {"role": ROLES[str(d.metadata.sender.value)], "content": d.content}
        for d in task.response_sequence
    ]
    log = [
        {"role": "system", "content": a.config.system_message},
        {"role": "user", "content": "What is 6*7?"},
        *steps,
    ]
    monitor = doneseq.Monitor(
        **options, max_turns=turns if turns > 0 else None, recognize_string_signals=False
    )
    run = monitor.start()
    outcomes = [run.observe(m) for m in log]
    first = next(i for i, o in enumerate(outcomes) if o is not None)
    assert first == len(log) - 1
    outcome = outcomes[first]
    assert outcome is not None and outcome.at == len(steps) - 1
    if options.get("single_round"):
        assert (outcome.kind, outcome.answer) == ("done", result.content)
    else:
        assert outcome.kind == "exhausted"
    # The response_sequence alone holds no input: replayed as it is ("marked").
    run = doneseq.Monitor(
        **options,
        max_turns=turns if turns > 0 else None,
        recognize_string_signals=False,
        input="marked",
    ).start()
    outcomes = [run.observe(m) for m in steps]
    assert next(i for i, o in enumerate(outcomes) if o is not None) == len(steps) - 1


# Langroid's stop semantics beside doneseq's. Each row runs the same script three ways:
# a plain Langroid Task, a DoneseqTask (the adapter), and Langroid's own run written as a
# chat log (system prompt, the task's input, its response_sequence) replayed through a
# doneseq Monitor with the same sequences and options (the engine). The adapter must end
# where Langroid ends, with the same status, result and number of LLM calls; the replay
# must stop at the log's last message, with Langroid's result as its answer when
# Langroid's rule ended the run. And the log Langroid itself wrote of its run
# (`logs/<task>.tsv`), read by doneseq's `langroid-tsv` reader, must hold every step of
# the response_sequence and stop as that replay does. A row that differs on purpose
# names its line under "Differences from Langroid" in the README, and must differ.


@dataclass
class LangroidRow:
    sequences: list[Any]
    script: list[Any]
    task: dict[str, Any] = field(default_factory=dict)
    turns: int = 8
    tools_api: bool = False
    difference: Optional[str] = None


def engine_options(task: dict[str, Any]) -> dict[str, Any]:
    """The Task arguments of a row as doneseq's options."""
    options = {}
    for key, value in task.items():
        if key in ("done_if_response", "done_if_no_response"):
            value = [str(entity.value).lower() for entity in value]
        options[key] = value
    return options


LANGROID_TABLE: dict[str, LangroidRow] = {
    "T[calculator], A; tool JSON": LangroidRow(["T[calculator], A"], SCRIPT),
    "T[calculator], A; OpenAI tool calls": LangroidRow(
        ["T[calculator], A"], [{"expression": "6*7"}, *SCRIPT[1:]], tools_api=True
    ),
    "T[CalculatorTool], A; the class name": LangroidRow(["T[CalculatorTool], A"], SCRIPT),
    "T, A": LangroidRow(["T, A"], SCRIPT),
    "L, A": LangroidRow(["L, A"], SCRIPT),
    "T[calculator], A, L": LangroidRow(["T[calculator], A, L"], SCRIPT),
    "L, U, L": LangroidRow(["L, U, L"], ["Thinking.", "Done thinking.", "More."]),
    "A, U": LangroidRow(["A, U"], SCRIPT),
    "two sequences, the second fires": LangroidRow(["C[never said]", "L, A"], SCRIPT),
    "T[other], A; never": LangroidRow(["T[other], A"], SCRIPT),
    "C[42]": LangroidRow(["C[42]"], SCRIPT),
    "C[^the answer]; IGNORECASE": LangroidRow(["C[^the answer]"], SCRIPT),
    "C[bitti]; the Turkish i": LangroidRow(["C[bitti]"], ["Tamam.", "BİTTİ", "More."]),
    r"C[(?<!NOT )\bAPPROVED\b]; a look-behind": LangroidRow(
        [r"C[(?<!NOT )\bAPPROVED\b]"], ["NOT APPROVED", "APPROVED", "More."]
    ),
    r"C[\b(\w+) \1\b]; a backreference": LangroidRow(
        [r"C[\b(\w+) \1\b]"], ["bye now", "bye bye", "More."]
    ),
    "L, C[bye]; a regex in a sequence": LangroidRow(["L, U, C[bye]"], ["Hello.", "Bye.", "More."]),
    "done_if_response=[LLM]": LangroidRow([], SCRIPT, {"done_if_response": [lr.Entity.LLM]}),
    "done_if_response=[Agent]": LangroidRow([], SCRIPT, {"done_if_response": [lr.Entity.AGENT]}),
    "done_if_no_response=[LLM]": LangroidRow(
        [], ["Hello.", "", "More."], {"done_if_no_response": [lr.Entity.LLM]}
    ),
    "the DONE string": LangroidRow([], ["Thinking.", "DONE 42", "More."]),
    "single_round": LangroidRow([], SCRIPT, {"single_round": True}, turns=-1),
    "single_round, llm_delegate": LangroidRow(
        [], SCRIPT, {"single_round": True, "llm_delegate": True}, turns=-1
    ),
    "turns=3": LangroidRow([], SCRIPT, turns=3),
    "turns=5 and a sequence that never fires": LangroidRow(["T[other]"], SCRIPT, turns=5),
    "U; the first step gives nothing": LangroidRow(
        ["U"],
        ["", "Hello."],
        difference="**The task's input never matches**",
    ),
    "L; an empty LLM reply": LangroidRow(
        ["L"],
        ["", "Hello."],
        difference="a candidate is never accepted because a sequence matched it",
    ),
    "T[calculator]; two calls in parallel": LangroidRow(
        ["T[calculator]"],
        [[{"expression": "6*7"}, {"expression": "1+1"}], "Both done.", "More."],
        tools_api=True,
        difference="**`T[x]` holds when any tool call is named `x`**",
    ),
}


def langroid_run(task_class: Any, config_class: Any, row: LangroidRow) -> tuple[Any, Any, Any]:
    a = agent(row.script, row.tools_api)
    task = task_class(
        a,
        # The user answers "Go on." at each turn, and may not be the only one to end
        # the task (Langroid's root-task gate, which doneseq does not model).
        interactive=True,
        default_human_response="Go on.",
        only_user_quits_root=False,
        config=config_class(done_sequences=row.sequences),
        **row.task,
    )
    return task.run("What is 6*7?", turns=row.turns), task, a


@pytest.mark.parametrize("name", list(LANGROID_TABLE))
def test_langroids_table(name):
    row = LANGROID_TABLE[name]
    theirs_result, theirs, theirs_agent = langroid_run(lr.Task, TaskConfig, row)
    # (The adapter's run writes a log of the same name: Langroid's is kept first.)
    theirs_log = Path("theirs.tsv")
    theirs_log.write_text(Path("logs", f"{theirs.name}.tsv").read_text())
    ours_result, _, ours_agent = langroid_run(DoneseqTask, DoneseqTaskConfig, row)
    theirs_end = (status(theirs_result), theirs_result and theirs_result.content)
    ours_end = (status(ours_result), ours_result and ours_result.content)
    if row.difference is not None:
        assert (ours_end, ours_agent.llm.calls) != (theirs_end, theirs_agent.llm.calls)
        assert_listed("Differences from Langroid", row.difference)
        return
    assert ours_end == theirs_end
    assert ours_agent.llm.calls == theirs_agent.llm.calls
    # The engine: Langroid's run as a chat log, replayed.
    log = [
        {"role": "system", "content": theirs_agent.config.system_message},
        {"role": "user", "content": "What is 6*7?"},
        *(to_message(theirs_agent, d) for d in theirs.response_sequence),
    ]
    monitor = doneseq.Monitor(
        done_sequences=row.sequences,
        tool_classes={"CalculatorTool": "calculator"},
        max_turns=row.turns if row.turns > 0 else None,
        **engine_options(row.task),
    )
    run = monitor.start()
    outcomes = [run.observe(m) for m in log]
    first = next(i for i, o in enumerate(outcomes) if o is not None)
    assert first == len(log) - 1
    outcome = outcomes[first]
    assert outcome is not None
    if status(theirs_result) == StatusCode.DONE or row.task.get("single_round"):
        # (Langroid reports a single round's end as FIXED_TURNS: it is its turn limit.)
        assert theirs_result is not None
        # (Where Langroid's result is empty, doneseq has no answer.)
        assert (outcome.kind, outcome.answer or "") == ("done", theirs_result.content)
    else:
        assert status(theirs_result) == StatusCode.FIXED_TURNS
        assert outcome.kind == "exhausted"
    # Langroid's own log of the run: every step, and the same stop (the answer as
    # the log writes a content: its white space collapsed, a long one shortened).
    replay = replayed(monitor, {theirs_log: "langroid-tsv"})
    assert replay["recorded_steps"] == len(theirs.response_sequence)
    logged = outcome.answer and shorten_text(outcome.answer, 80)
    assert (replay["kind"], replay["steps"], replay["answer"]) == (
        outcome.kind,
        outcome.at + 1,
        logged,
    )
