"""The provisioning fixtures (registered host and members with the platform installed, eager tasks, onboarding
through the product's service): Secrets and ConfigMaps live on the real host."""

from tests.support.provisioning import eager_tasks, federation, pools, register  # noqa: F401
