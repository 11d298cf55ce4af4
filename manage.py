#!/usr/bin/env python3
"""PinConsole management entry point.

    python3 manage.py dev    # fresh machine: install everything, start local clusters, run the portal
    python3 manage.py test   # install everything the suite needs, then run the whole test suite

Both bootstrap the environment first (devtools/bootstrap.py, standard library only, imported with
whatever Python runs this file) and re-run inside .venv. `test` then runs pytest; `dev` runs the dev
stack (devtools/dev.py), which sets Django up itself: devtools is not a Django app and the portal's
settings do not know about it. Every other command is Django's.
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
BOOTSTRAPPED = {"dev", "test"}


def _write_bytecode() -> None:
    """The suite may write bytecode (``__pycache__``, git- and image-ignored) even where PYTHONDONTWRITEBYTECODE is
    set: it starts hundreds of Python processes (operators, portals, workers, CLIs), and without the files each one
    compiled the project's modules again, and each pytest worker rewrote every test module: 4 % of the suite's CPU."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def main() -> None:
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command in BOOTSTRAPPED and os.environ.get("PINCONSOLE_BOOTSTRAPPED") != "1":
        sys.path.insert(0, str(ROOT))
        from devtools import bootstrap

        python = bootstrap.ensure_environment(ROOT, purpose=command, argv=sys.argv[2:])
        os.environ["PINCONSOLE_BOOTSTRAPPED"] = "1"
        if command == "test":
            os.chdir(ROOT)
            _write_bytecode()
            os.execv(python, [python, "-m", "pytest", *sys.argv[2:]])
        os.execv(python, [python, str(ROOT / "manage.py"), *sys.argv[1:]])
    if command == "test":
        _write_bytecode()
        os.execv(sys.executable, [sys.executable, "-m", "pytest", *sys.argv[2:]])
    if command == "dev":
        from devtools.dev import main as dev

        sys.exit(dev(sys.argv[2:]))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "console.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
