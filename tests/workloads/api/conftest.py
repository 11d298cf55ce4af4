"""Fixtures of the workload API tests: the project fixtures (``ads`` with an owner, a developer and a viewer;
another tenant's ``ml``; the host's and members' caches filled by hand) and the fake host of ``fixtures``."""

from tests.support.api_host import fake_host, fresh_rate_counts, web  # noqa: F401
from tests.support.projects import (  # noqa: F401
    caches,
    developer,
    fast_passwords,
    other_project,
    owner,
    project,
    region,
    viewer,
)
