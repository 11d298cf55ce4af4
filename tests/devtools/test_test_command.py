"""README command 2 (``python3 manage.py test``) runs pytest, and its processes, allowed to write bytecode even where
PYTHONDONTWRITEBYTECODE is set: otherwise every process the suite starts compiles the project's modules again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_test_command_runs_pytest_writing_bytecode(tmp_path):
    said = tmp_path / "probe.json"
    env = {**os.environ, "PINCONSOLE_BOOTSTRAPPED": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env["BYTECODE_PROBE_OUT"] = str(said)

    done = subprocess.run(
        [sys.executable, "manage.py", "test", "-n", "1", "-p", "tests.harness.probes.bytecode_probe"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(said.read_text()) == {"dont_write_bytecode": 0, "env": None}
