"""Fixtures for the notification tests: the project service fixtures (a project with one member per role, another
tenant's project)."""

from tests.support.debugging import close_thread_connections  # noqa: F401 - fixture, used by name
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
