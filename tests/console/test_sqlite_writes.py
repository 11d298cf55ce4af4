"""The embedded default's SQLite under concurrent writes, in a process of its own with the portal's settings (no
DATABASE_URL). SQLite has one writer at a time: a deferred transaction that read before another one wrote fails
with "database is locked" the moment it writes (no waiting helps: its snapshot is stale). The portal's transactions
take the write lock when they begin (``transaction_mode`` IMMEDIATE, ``console.settings``) and wait for it; a hostile
probe's 12 concurrent project creations on the dev server answered 500 eleven times before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
OVERLAP = """
import threading, time
import django
django.setup()
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection, transaction

call_command("migrate", verbosity=0, interactive=False)
errors = []

def read_then_write():
    try:
        with transaction.atomic():
            User.objects.count()  # a read first, as every service does (is the name taken?)
            time.sleep(0.4)  # meanwhile the other transaction writes
            User.objects.create(username="second")
    except Exception as exc:
        errors.append(repr(exc))
    finally:
        connection.close()

def write():
    try:
        with transaction.atomic():
            User.objects.create(username="first")
            time.sleep(0.4)
    except Exception as exc:
        errors.append(repr(exc))
    finally:
        connection.close()

first = threading.Thread(target=read_then_write)
first.start()
time.sleep(0.1)
second = threading.Thread(target=write)
second.start()
first.join(); second.join()
print(sorted(User.objects.values_list("username", flat=True)), errors)
"""


def run_overlap(tmp_path: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env |= {"PINCONSOLE_VAR_DIR": str(tmp_path / "var"), "DJANGO_SETTINGS_MODULE": "console.settings"}
    env |= {"DEBUG": "false", "SECRET_KEY": "embedded-" + "x" * 50, "WATCH_CACHE_ENABLED": "false"}
    done = subprocess.run(
        [sys.executable, "-c", OVERLAP], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_a_transaction_that_read_first_waits_for_the_other_writer_instead_of_failing(tmp_path):
    assert run_overlap(tmp_path) == "['first', 'second'] []"
