"""Fixtures of the workload API tests: the project fixtures (``ads`` with an owner, a developer and a viewer;
another tenant's ``ml``; the host's and members' caches filled by hand) and the fake host of ``fixtures``."""

from tests.projects.conftest import (  # noqa: F401
    caches,
    developer,
    fast_passwords,
    other_project,
    owner,
    project,
    region,
    viewer,
)
from tests.workloads.api.fixtures import fake_host, fresh_rate_counts, web  # noqa: F401
