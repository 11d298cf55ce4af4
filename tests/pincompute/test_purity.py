import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "pincompute"
WEB_STACK = ("django", "rest_framework", "channels", "celery", "console", "projects", "clusters", "debugging")
FORBIDDEN = (*WEB_STACK, "requests", "urllib", "http", "socket", "kubernetes")
OPERATOR = CORE / "operator"
KUBE = CORE / "kube"  # the list-watch and raw JSON helpers shared by the operator and the portal cache
IO_PACKAGES = (OPERATOR, KUBE)  # the only parts of the core that talk to apiservers
IO_MODULES = ("pincompute.operator", "pincompute.kube")
PARSING_ONLY = ("urllib.parse",)  # string parsing of URLs (ownership links): no network


def imported_modules(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module


def pure_modules():
    return [p for p in CORE.rglob("*.py") if not any(io in p.parents for io in IO_PACKAGES)]


def test_core_imports_nothing_from_the_web_stack_or_the_network():
    offenders = [
        (p.name, m)
        for p in pure_modules()
        for m in imported_modules(p)
        if (m.split(".")[0] in FORBIDDEN and m not in PARSING_ONLY) or m.startswith(IO_MODULES)
    ]
    assert offenders == []


def test_the_io_packages_do_io_but_never_import_the_web_stack():
    offenders = [
        (p.name, m)
        for io in IO_PACKAGES
        for p in io.rglob("*.py")
        for m in imported_modules(p)
        if m.split(".")[0] in WEB_STACK
    ]
    assert offenders == []


def test_core_modules_stay_small():
    sizes = {p.relative_to(CORE).as_posix(): len(p.read_text().splitlines()) for p in CORE.rglob("*.py")}
    assert max(sizes.values()) <= 400, sizes
