"""The mini-swe-agent format against mini-swe-agent 1 (1.17.5, the release of the
SWE-bench bash-only runs of late 2025), whose trajectories keep neither the command
it parsed from the model's text nor its return code: the tests of
``test_mini_swe_agent.py`` (imported, so collected here too), run against its
text-based model and SWE-bench configuration, and what sets its trajectories apart."""

from __future__ import annotations

import json

import minisweagent
from test_mini_swe_agent import (  # noqa: F401  (the fixture and the tests, collected here)
    run,
    test_a_damaged_message_names_its_line,
    test_a_trajectory_stops_as_the_run,
    test_its_step_limit_stops_where_max_model_calls_does,
    test_model_calls_are_mini_swe_agents_own_count,
    test_the_failed_command_is_an_error,
    test_the_submission_is_the_answer,
)


def test_this_mini_swe_agent_keeps_no_commands_or_return_codes(run):  # noqa: F811
    assert minisweagent.__version__ == "1.17.5"
    trajectory = json.loads(run.trajectory.read_text(encoding="utf-8"))
    assert trajectory["trajectory_format"] == "mini-swe-agent-1"
    assert trajectory["info"]["config"]["agent"]["action_regex"] == r"```bash\s*\n(.*?)\n```"
    extras = [m.get("extra", {}) for m in trajectory["messages"]]
    assert not any("actions" in e or "returncode" in e for e in extras), extras
    # Its end is the submission as a user message, not an exit.
    assert [m["role"] for m in trajectory["messages"][-2:]] == ["assistant", "user"]
