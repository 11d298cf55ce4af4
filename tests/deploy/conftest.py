"""The Helm chart's fixtures (defined in tests/support/helm.py): helm from its pinned Go module, ``render``."""

from tests.support.helm import helm, render  # noqa: F401 - fixtures, used by name
