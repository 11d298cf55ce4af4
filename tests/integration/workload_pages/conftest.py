"""The provisioning fixtures (registered host and members with the platform installed, pools, eager tasks),
shared with the workload page tests through the real apiservers."""

from tests.integration.provisioning.conftest import eager_tasks, federation, pools, register  # noqa: F401
