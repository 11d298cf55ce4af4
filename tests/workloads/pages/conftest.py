"""The project fixtures (a region, ``ads`` with an owner, a developer and a viewer, another tenant's ``ml``,
the host's and members' caches filled by hand), shared with the workload page tests."""

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
