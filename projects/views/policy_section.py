"""The read model of the project page's policy section (also its htmx partial's context)."""

from __future__ import annotations

from typing import Any

from pincompute.policy import policy_document
from projects.access import ADMIN
from projects.models import Project
from projects.policy import policy_of
from projects.policy_form import PolicyForm, initial_of


def policy_section(project: Project, role: str | None, *, form: PolicyForm | None = None) -> dict[str, Any]:
    """The policy the project is under, and (platform admins) its form."""
    document = policy_document(policy_of(project))
    editable = role == ADMIN
    return {
        "policy": document,
        "policy_form": form or (PolicyForm(initial=initial_of(document)) if editable else None),
        "policy_editable": editable,
    }
