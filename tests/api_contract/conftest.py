"""Fixtures of the API contract tests: the workload API's (``ads`` with an owner, a developer and a viewer; another
tenant's ``ml``; the host's and members' caches; the fake host)."""

from tests.workloads.api.conftest import (  # noqa: F401
    caches,
    developer,
    fake_host,
    fast_passwords,
    fresh_rate_counts,
    other_project,
    owner,
    project,
    region,
    viewer,
    web,
)
