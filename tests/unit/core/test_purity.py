import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[3] / "workloads" / "core"
FORBIDDEN = ("django", "rest_framework", "channels", "celery", "console", "projects", "clusters", "debugging",
             "requests", "urllib", "http", "socket", "kubernetes")


def imported_modules(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module


def test_core_imports_nothing_from_the_web_stack_or_the_network():
    offenders = [(p.name, m) for p in CORE.rglob("*.py") for m in imported_modules(p)
                 if m.split(".")[0] in FORBIDDEN]
    assert offenders == []


def test_core_modules_stay_small():
    sizes = {p.relative_to(CORE).as_posix(): len(p.read_text().splitlines()) for p in CORE.rglob("*.py")}
    assert max(sizes.values()) <= 400, sizes
