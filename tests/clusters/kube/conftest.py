"""Fixtures for watch-cache tests against the real local control plane (defined in tests/support/watch.py)."""

from tests.support.watch import cache, core, member_target, namespace, pool  # noqa: F401 - fixtures, used by name
