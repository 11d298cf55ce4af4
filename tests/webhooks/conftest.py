"""Fixtures for the webhook tests: the project service fixtures and a receiver on 127.0.0.1."""

import pytest

from tests.support.projects import (  # noqa: F401 - fixtures, used by name
    caches,
    developer,
    fast_passwords,
    other_project,
    owner,
    project,
    region,
    viewer,
)
from tests.support.webhooks import Receiver


@pytest.fixture
def receiver():
    found = Receiver()
    yield found
    found.stop()


@pytest.fixture
def private_allowed(settings):
    """Dev and tests: receivers on 127.0.0.1 are allowed (production refuses them)."""
    settings.WEBHOOK_ALLOW_PRIVATE = True
