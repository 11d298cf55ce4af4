"""Loaded with ``-p`` by a test of the test command: writes whether this pytest may write bytecode to the file
``BYTECODE_PROBE_OUT`` names, then ends the run before any worker or service starts."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    said = {"dont_write_bytecode": sys.flags.dont_write_bytecode, "env": os.environ.get("PYTHONDONTWRITEBYTECODE")}
    Path(os.environ["BYTECODE_PROBE_OUT"]).write_text(json.dumps(said))
    pytest.exit("probed", returncode=0)
