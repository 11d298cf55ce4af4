"""Fixtures of the chargeback tests: the project service tests' region (two members with pools), ``ads`` with an
owner, a developer and a viewer, another tenant's ``ml``, and the members' caches filled by hand."""

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
