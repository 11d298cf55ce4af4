"""Shared fixtures: users, clients and factories that create exactly one object each."""

from __future__ import annotations

import gc
import os

import pytest
from hypothesis import HealthCheck, settings

from tests.support.stuck_tasks import _no_stuck_tasks  # noqa: F401  (autouse for every async test)

# The suite shares 2 cores with real apiservers: generation speed is not what property tests check.
settings.register_profile("pinconsole", suppress_health_check=[HealthCheck.too_slow], deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "pinconsole"))

# Playwright's sync API runs an event loop in the main thread; Django's ORM must still be allowed there.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """pytest-django's test database, dropped after the connections of finished async tests' contexts (never closed,
    see tests/harness/plugin.py) are garbage-collected, which closes them: PostgreSQL refuses to drop a database
    another session still uses."""
    yield
    gc.collect()


@pytest.fixture(autouse=True, scope="session")
def _quick_password_hashes():
    """Passwords hashed at a thousand PBKDF2 rounds for the whole session (``tests/harness/hashers.py``)."""
    from django.conf import settings as django_settings
    from django.contrib.auth.hashers import get_hashers, get_hashers_by_algorithm

    shipped = django_settings.PASSWORD_HASHERS
    others = [h for h in shipped if not h.endswith(".PBKDF2PasswordHasher")]  # one class per algorithm name
    django_settings.PASSWORD_HASHERS = ["tests.harness.hashers.QuickPBKDF2PasswordHasher", *others]
    get_hashers.cache_clear()
    get_hashers_by_algorithm.cache_clear()
    yield
    django_settings.PASSWORD_HASHERS = shipped
    get_hashers.cache_clear()
    get_hashers_by_algorithm.cache_clear()


@pytest.fixture(autouse=True)
def _fresh_version_memos():
    """Each test's fake apiservers start their versions and uids afresh, as a new cluster would not (its uids are
    random): what a previous test's objects derived is forgotten."""
    from workloads.memo import VersionMemo

    VersionMemo.clear_all()


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Rate-limit counts (the API's, failed sign-ins) live in Redis for the whole session: each test starts with
    none, as the same usernames sign in from the same address test after test."""
    from base.throttling import reset_limits

    reset_limits()


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("dev1", "dev1@example.com", "pw-dev1-Secret!")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user("dev2", "dev2@example.com", "pw-dev2-Secret!")


@pytest.fixture
def admin_user(django_user_model):
    from django.conf import settings
    from django.contrib.auth.models import Group

    admin = django_user_model.objects.create_user("ops", "ops@example.com", "pw-ops-Secret!")
    admin.groups.add(Group.objects.get_or_create(name=settings.PLATFORM_ADMIN_GROUP)[0])
    return admin


@pytest.fixture
def user_client(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def admin_client_(client, admin_user):
    client.force_login(admin_user)
    return client


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()
