"""Fixtures for provisioning against the real local control plane (defined in tests/support/provisioning.py): the
registry rows of the host and the members with the platform installed, pools, eager Celery."""

from tests.support.provisioning import eager_tasks, federation, pools, register  # noqa: F401 - fixtures, used by name
