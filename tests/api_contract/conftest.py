"""Fixtures of the API contract tests: the workload API's (``ads`` with an owner, a developer and a viewer; another
tenant's ``ml``; the host's and members' caches; the fake host)."""

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
