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
from tests.support.sdk import SDK_DIR  # noqa: F401 - puts the SDK (pinconsole_sdk) on sys.path
