"""Each adapter module is importable only with its framework, and says what to
install otherwise. The framework is made unimportable in a fresh interpreter
(``sys.modules[name] = None``), so this holds whether it is installed or not."""

from __future__ import annotations

import subprocess
import sys

import pytest

ADAPTERS = [
    ("autogen", "autogen_agentchat", "pip install autogen-agentchat==0.7.5"),
    ("langroid", "langroid", "pip install langroid==0.69.16"),
    ("openai_agents", "agents", "pip install openai-agents==0.24.0"),
    ("rlm_code", "rlm_code", "pip install rlm-code==0.1.13"),
    ("locus", "locus", "pip install locus-sdk==0.2.0"),
    ("dask", "dask", 'pip install "dask[distributed]==2026.8.0"'),
]


@pytest.mark.parametrize("module,framework,advice", ADAPTERS)
def test_an_adapter_without_its_framework_says_what_to_install(module, framework, advice):
    code = (
        f"import sys; sys.modules[{framework!r}] = None\n"
        "try:\n"
        f"    import doneseq.{module}\n"
        "except ImportError as e:\n"
        "    print(e)\n"
        "else:\n"
        "    print('imported')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert advice in out, out
    # The core package itself needs no framework.
    core = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.modules[{framework!r}] = None; import doneseq"],
        capture_output=True,
        text=True,
    )
    assert core.returncode == 0, core.stderr
