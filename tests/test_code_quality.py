"""The repository stays ruff clean and ruff formatted, the layers hold (import-linter contracts in
pyproject.toml), and the core and the Kubernetes client layer stay mypy --strict clean."""

import shutil
import subprocess
import sys
import tomllib
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
    done = _run("mypy", "pincompute", "clusters/kube")

    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    assert "Success: no issues found" in done.stdout


def test_ruff_format_is_applied():
    done = _run("ruff", "format", "--check", ".")

    assert done.returncode == 0, done.stdout[-4000:]


def test_the_layer_contracts_are_kept():
    done = _run("lint-imports")

    assert done.returncode == 0, done.stdout[-4000:]
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert "BROKEN" not in done.stdout and f"{len(contracts)} kept, 0 broken" in done.stdout


def test_every_core_module_is_either_pure_or_an_io_package():
    """A new module under pincompute must be listed as pure in the contract (or live in operator/ or kube/)."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    pure = set(next(c for c in contracts if c["name"].startswith("Pure core modules"))["source_modules"])
    core = ROOT / "pincompute"
    modules = {f"pincompute.{p.stem}" for p in core.glob("*.py") if p.stem != "__init__"}
    modules |= {f"pincompute.{p.parent.name}" for p in core.glob("*/__init__.py")}

    assert modules - {"pincompute.operator", "pincompute.kube"} == pure
