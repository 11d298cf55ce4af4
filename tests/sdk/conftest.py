"""Fixtures of the SDK and CLI tests: the SDK imported from its own directory and ``asgi_portal`` (defined in
tests/support/sdk.py); the workload API's fixtures (projects, users, the fake host with ``web``) for the tests that
drive the real portal through ``live_server``; ``portal`` and ``cli`` (tests/support/sdk_cli.py), the CLI against it."""

from tests.support.api_host import fake_host, fresh_rate_counts, web  # noqa: F401 - fixtures, used by name
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
from tests.support.sdk import asgi_portal  # noqa: F401 - fixtures, used by name
from tests.support.sdk_cli import cli, portal  # noqa: F401 - fixtures, used by name
