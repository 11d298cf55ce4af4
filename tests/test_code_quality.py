"""The repository stays ruff clean, the core stays a library (import-linter contract), and the core and the
Kubernetes client layer stay mypy --strict clean (pyproject.toml [tool.mypy])."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    exe = BIN / tool if (BIN / tool).exists() else shutil.which(tool)
    assert exe, f"{tool} is not installed"
    return subprocess.run([str(exe), *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_is_clean():
    done = _run("ruff", "check", ".")

    assert done.returncode == 0, done.stdout[-4000:]


def test_core_and_kube_layer_are_mypy_strict_clean():
    done = _run("mypy", "workloads/core", "clusters/kube")

    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    assert "Success: no issues found" in done.stdout


def test_core_does_not_import_django_or_portal_apps():
    done = _run("lint-imports")

    assert done.returncode == 0, done.stdout[-4000:]
    assert "KEPT" in done.stdout
