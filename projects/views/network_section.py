"""The read model of the project page's network section (also its htmx partial's context)."""

from __future__ import annotations

from typing import Any

from projects.models import Project
from projects.network import PROTOCOLS
from projects.network_plan import network_view


def network_section(project: Project, *, error: str = "", notice: str = "", form: Any = None) -> dict[str, Any]:
    """The openings, what each policy admits, and the add form (as given after a refusal)."""
    return {
        "network": network_view(project),
        "protocols": PROTOCOLS,
        "network_error": error,
        "network_notice": notice,
        "network_form": form or {"protocol": "TCP"},
    }
