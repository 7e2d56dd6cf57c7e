"""doneseq for rlm-code: termination policies in rlm-code's registry, and its FINAL
protocol functions, backed by doneseq.

Importing this module registers in rlm-code's ``PolicyRegistry``:

- ``"doneseq"``: ``DoneseqTerminationPolicy``, configured with doneseq's rules
  (``sequences`` or ``done_sequences``, ``stop``, and Langroid's options)::

      from rlm_code.rlm.policies.registry import PolicyRegistry
      import doneseq.rlm_code  # registers the policies

      policy = PolicyRegistry.get_termination(
          "doneseq", {"stop": "final | reward(0.8) | tokens(50000) | loop"}
      )

- ``"doneseq_final_pattern"``, ``"doneseq_reward_threshold"``, ``"doneseq_confidence"``
  and ``"doneseq_composite"``: rlm-code's own policies, with their configuration keys,
  decided by doneseq (``policy(name, config)`` builds one directly). They keep their
  own registry names beside rlm-code's, so that a configuration chooses.

Each ``should_terminate(result, context)`` call is one step: the action's output as
a model message, a failed action as an error, ``tokens_used`` as output tokens,
``metadata["confidence"]`` as the confidence and other numeric metadata as metrics,
and ``context.metrics["last_reward"]`` as the step's reward. An action of type
``"final"`` ends the episode with its output, as in rlm-code.

Where doneseq's answer differs from rlm-code's, on purpose:

- ``FINAL(f(x))`` is ``f(x)`` (rlm-code's regex gives ``f(x``); a ``FINAL(`` inside a
  string or a comment of code is not a signal;
- a ``FINAL_VAR`` whose variable does not exist is not final: the episode goes on
  (rlm-code answers with the variable's name);
- a stop that is not an answer (a negative reward streak, a budget) returns
  ``(True, None)``, never a status sentence as the answer; ``outcome`` says why.

``detect_final_in_text``, ``detect_final_in_code``, ``resolve_final_var``,
``extract_code_blocks`` and ``format_final_answer`` have rlm-code's signatures and
return types. ``detect_final_in_code`` also gives the answer's text where rlm-code
leaves it for run time.
"""

from __future__ import annotations

from typing import Any, Optional

try:
    from rlm_code.rlm.policies.base import ActionResult, PolicyContext, TerminationPolicy
    from rlm_code.rlm.policies.registry import PolicyRegistry
    from rlm_code.rlm.termination import FinalDetection
except ImportError as e:  # pragma: no cover - exercised without the framework
    raise ImportError("doneseq.rlm_code needs rlm-code: pip install rlm-code==0.1.13") from e

from doneseq import _native
from doneseq._native import Monitor, Outcome, Run

__all__ = [
    "BUILTIN_NAMES",
    "DoneseqTerminationPolicy",
    "action_message",
    "detect_final_in_code",
    "detect_final_in_text",
    "extract_code_blocks",
    "format_final_answer",
    "policy",
    "resolve_final_var",
]

#: rlm-code's termination policy names that doneseq decides, registered with the
#: prefix ``doneseq_``.
BUILTIN_NAMES = ("final_pattern", "reward_threshold", "confidence", "composite")


def _detection(found: dict[str, Any]) -> FinalDetection:
    fields = found.get("value") if found.get("final_type") == "submit" else None
    return FinalDetection(
        detected=bool(found.get("detected")),
        final_type=found.get("final_type"),
        content=found.get("content"),
        raw_match=found.get("raw_match"),
        submit_fields=dict(fields) if isinstance(fields, dict) else {},
    )


def detect_final_in_text(text: str) -> FinalDetection:
    """A ``FINAL()``, ``FINAL_VAR()`` or ``SUBMIT()`` in model text."""
    return _detection(_native.detect_final_in_text(text or ""))


def detect_final_in_code(code: str) -> FinalDetection:
    """The same in code, before it runs (comments and strings do not count)."""
    return _detection(_native.detect_final_in_code(code or ""))


def resolve_final_var(variable_name: str, namespace: dict[str, Any]) -> Any:
    """The value of a ``FINAL_VAR`` variable; ``KeyError`` listing the names if absent."""
    if variable_name not in namespace:
        raise KeyError(
            f"FINAL_VAR referenced variable '{variable_name}' not found in REPL namespace. "
            f"Available variables: {list(namespace.keys())}"
        )
    return namespace[variable_name]


def extract_code_blocks(text: str, language: str = "repl") -> list[str]:
    """The fenced code blocks tagged ``language`` or ``python`` (else untagged blocks
    that look like Python), in order."""
    return _native.extract_code_blocks(text or "", language)


def format_final_answer(answer: Any) -> str:
    """A final answer as text, as rlm-code formats it."""
    return _native.format_final_answer(answer)


def action_message(result: ActionResult, context: PolicyContext) -> dict[str, Any]:
    """The doneseq message one action stands for."""
    message: dict[str, Any] = {"role": "assistant", "content": result.output or ""}
    if result.error:
        message["error"] = result.error
    elif not result.success:
        message["error"] = "the action failed"
    if result.tokens_used:
        message["usage"] = {"input_tokens": 0, "output_tokens": int(result.tokens_used)}
    metrics: dict[str, float] = {}
    for key, value in (result.metadata or {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if key == "confidence":
            message["confidence"] = float(value)
        else:
            metrics[key] = float(value)
    if metrics:
        message["metrics"] = metrics
    reward = (context.metrics or {}).get("last_reward")
    if isinstance(reward, (int, float)) and not isinstance(reward, bool):
        message["reward"] = float(reward)
    return message


class DoneseqTerminationPolicy(TerminationPolicy):
    """An rlm-code termination policy decided by doneseq. Configuration: ``sequences``
    (or ``done_sequences``), ``stop``, and Langroid's task options."""

    name = "doneseq"
    description = "doneseq: done sequences, FINAL answers and composable stop conditions"

    def __init__(self, config: Optional[dict[str, Any]] = None) -> None:
        super().__init__(config)
        options = dict(self.config)
        sequences = options.pop("sequences", None)
        if sequences is None:
            sequences = options.pop("done_sequences", None)
        stop = options.pop("stop", None)
        # Langroid's `DONE` string is not rlm-code's protocol.
        options.setdefault("recognize_string_signals", False)
        self.monitor = Monitor(done_sequences=sequences, stop=stop, **options)
        self._run: Run = self.monitor.start()
        self.outcome: Optional[Outcome] = None

    @classmethod
    def get_default_config(cls) -> dict[str, Any]:
        return {"stop": "final"}

    def reset(self) -> None:
        """A new episode."""
        self._run = self.monitor.start()
        self.outcome = None

    def should_terminate(
        self, result: ActionResult, context: PolicyContext
    ) -> tuple[bool, Optional[str]]:
        if result.action_type == "final":
            return True, result.output or None
        outcome = self._run.observe(action_message(result, context))
        if outcome is None:
            return False, None
        if outcome.kind != "done":
            self.outcome = outcome
            return True, None
        answer = outcome.answer
        if outcome.answer_source == "final_variable" and answer is not None:
            if answer not in context.variables:
                # Not final: the episode goes on (the variable may be set later).
                return False, None
            answer = format_final_answer(context.variables[answer])
        self.outcome = outcome
        return True, answer


def policy(name: str, config: Optional[dict[str, Any]] = None) -> DoneseqTerminationPolicy:
    """rlm-code's termination policy ``name`` (with rlm-code's configuration keys),
    decided by doneseq. Unknown names and keys are a ``doneseq.ConfigError``."""
    return DoneseqTerminationPolicy({"stop": _native.rlm_policy(name, config)})


def _register() -> None:
    PolicyRegistry.register_termination("doneseq")(DoneseqTerminationPolicy)
    for builtin in BUILTIN_NAMES:

        def init(
            self: DoneseqTerminationPolicy,
            config: Optional[dict[str, Any]] = None,
            _name: str = builtin,
        ) -> None:
            DoneseqTerminationPolicy.__init__(self, {"stop": _native.rlm_policy(_name, config)})

        cls = type(
            f"Doneseq_{builtin}",
            (DoneseqTerminationPolicy,),
            {
                "__init__": init,
                "name": f"doneseq_{builtin}",
                "description": f"rlm-code's {builtin} policy, decided by doneseq",
            },
        )
        PolicyRegistry.register_termination(f"doneseq_{builtin}")(cls)


_register()
