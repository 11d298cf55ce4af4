"""Fixtures for the project service tests (defined in tests/support/projects.py): a region with pools, a project
with one member per role, and the host's and members' caches filled by hand (never a real apiserver)."""

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
