"""The projects' fixtures: ``ads`` (owner dev1, developer devi, viewer vic) and ``ml`` (dev2's)."""

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
