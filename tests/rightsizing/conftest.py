"""The workload page fixtures: ``ads`` with an owner, a developer and a viewer, another tenant's ``ml``, the fake
host with ``web`` (tests/support/fake_host.py)."""

from tests.support.fake_host import fake_host, web  # noqa: F401 - fixtures, used by name
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
