#!/usr/bin/env python3
"""PinConsole management entry point.

    python3 manage.py dev    # fresh machine: install everything, start local clusters, run the portal
    python3 manage.py test   # install everything the suite needs, then run the whole test suite

Both bootstrap the environment first (console/bootstrap.py, stdlib only) and re-run inside .venv.
Every other command is Django's.
"""

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
BOOTSTRAPPED = {"dev", "test"}


def _bootstrap_module():
    spec = importlib.util.spec_from_file_location("pinconsole_bootstrap", ROOT / "console" / "bootstrap.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command in BOOTSTRAPPED and os.environ.get("PINCONSOLE_BOOTSTRAPPED") != "1":
        bootstrap = _bootstrap_module()
        python = bootstrap.ensure_environment(ROOT, purpose=command)
        os.environ["PINCONSOLE_BOOTSTRAPPED"] = "1"
        if command == "test":
            os.chdir(ROOT)
            os.execv(python, [python, "-m", "pytest", *sys.argv[2:]])
        os.execv(python, [python, str(ROOT / "manage.py"), *sys.argv[1:]])
    if command == "test":
        os.execv(sys.executable, [sys.executable, "-m", "pytest", *sys.argv[2:]])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "console.settings")
    if command == "dev":  # the embedded default: debug on, local password sign-in with demo users
        os.environ.setdefault("DEBUG", "true")
        os.environ.setdefault("PINCONSOLE_DEV_LOGIN", "true")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
