"""The provisioning fixtures (registered host and members with the platform installed, eager tasks,
onboarding through the product's service), shared with the submission tests."""

from tests.support.provisioning import eager_tasks, federation, pools, register  # noqa: F401
