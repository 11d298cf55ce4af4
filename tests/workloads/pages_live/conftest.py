"""The provisioning fixtures (registered host and members with the platform installed, pools, eager tasks) and the
federation operator the workload page tests run through the real apiservers (defined in
tests/support/workload_operator.py)."""

from tests.support.provisioning import eager_tasks, federation, pools, register  # noqa: F401 - fixtures, used by name
from tests.support.workload_operator import created, operator  # noqa: F401 - fixtures, used by name
