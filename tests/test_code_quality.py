"""The repository stays ruff clean and ruff formatted, the layers hold (import-linter contracts in
pyproject.toml), and the core and the Kubernetes client layer stay mypy --strict clean."""

import ast
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


def _python_files() -> list[Path]:
    """Every Python file of the repository (hidden folders, the virtualenv and the front end's packages aside)."""
    files = list(ROOT.glob("*.py"))
    for top in ROOT.iterdir():
        if top.is_dir() and not top.name.startswith(".") and top.name not in ("static", "node_modules"):
            files += [p for p in top.rglob("*.py") if "node_modules" not in p.parts]
    return files


def _imported(path: Path) -> set[str]:
    """The dotted names the `import` and `from ... import` statements of ``path`` may name as a module (relative
    ones resolved against its package)."""
    package = path.relative_to(ROOT).parent.parts
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join([*package[: len(package) - node.level + 1], *([node.module] if node.module else [])])
            module = base if node.level else node.module or ""
            names |= {module} | {f"{module}.{alias.name}" for alias in node.names}
    return names


def test_no_module_imports_a_test_module_or_a_conftest():
    """Shared helpers live in tests/support (or are fixtures): a test module or a conftest imported elsewhere runs
    its fixtures and hooks twice, and ties tests to where another test happens to be filed."""
    forbidden = {
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for p in (ROOT / "tests").rglob("*.py")
        if p.name == "conftest.py" or (p.name.startswith("test_") and p.parent != ROOT / "tests")
    } | {"tests.conftest"}
    found = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in _python_files()
        for name in sorted(_imported(path) & forbidden)
    ]

    assert not found, "\n".join(found)
