import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROD_ENV = {
    "DEBUG": "false",
    "SECRET_KEY": "p" * 64 + "-Qz9!",
    "ALLOWED_HOSTS": "portal.example.com",
    "DATABASE_URL": "postgres://u:p@db.example.com/pinconsole",
    "REDIS_URL": "redis://cache.example.com:6379/0",
}


def _manage(*args, env):
    dropped = ("SECURE_", "SESSION_", "CSRF_", "DEBUG", "DJANGO_ALLOW_ASYNC")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args], env={**clean, **env}, capture_output=True, text=True, cwd=ROOT
    )


def test_check_deploy_is_clean_with_production_values():
    done = _manage("check", "--deploy", "--fail-level", "WARNING", env=PROD_ENV)

    assert done.returncode == 0, done.stderr + done.stdout
    assert "no issues" in done.stdout


def test_missing_secret_key_fails_fast_outside_debug():
    env = {**PROD_ENV, "SECRET_KEY": ""}
    done = _manage("check", env=env)

    assert done.returncode != 0
    assert "SECRET_KEY is required" in done.stderr


def test_embedded_default_uses_sqlite_in_memory_layer_and_eager_tasks():
    code = (
        "import django,os;django.setup();from django.conf import settings as s;"
        "print(s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'],"
        " s.CELERY_TASK_ALWAYS_EAGER)"
    )
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    done = subprocess.run(
        [sys.executable, "-c", code], env={**clean, "DEBUG": "true"}, capture_output=True, text=True, cwd=ROOT
    )

    assert done.stdout.split() == ["django.db.backends.sqlite3", "channels.layers.InMemoryChannelLayer", "True"]


def test_the_shipped_hasher_is_djangos_default_and_a_suite_hash_verifies_under_it():
    """The suite hashes at a thousand rounds (tests/harness/hashers.py); the portal as shipped keeps Django's
    default hasher, checks such a hash, and would rehash it at the full count."""
    code = (
        "import django; django.setup(); "
        "from django.conf import settings; from django.contrib.auth.hashers import check_password, get_hasher; "
        "print(settings.PASSWORD_HASHERS[0], get_hasher().iterations, "
        f"check_password('pw-dev1-Secret!', {_quick_hash()!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "console.settings"},
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    hasher, iterations, verified = done.stdout.split()
    assert hasher == "django.contrib.auth.hashers.PBKDF2PasswordHasher" and int(iterations) >= 1_000_000
    assert verified == "True"


def _quick_hash() -> str:
    from tests.harness.hashers import QuickPBKDF2PasswordHasher

    encoded = QuickPBKDF2PasswordHasher().encode("pw-dev1-Secret!", "somesalt")
    assert encoded.startswith("pbkdf2_sha256$1000$")
    return encoded
