"""Fixtures of the tools page tests (defined in tests/support/projects.py): ``ads`` with an owner, a developer and a
viewer, another tenant's ``ml``."""

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
