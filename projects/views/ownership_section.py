"""The read model of the project page's ownership section (also its htmx partial's context)."""

from __future__ import annotations

from typing import Any

from pincompute.ownership import LINK_KINDS, MAX_LINKS, ONCALL_FORMS, oncall_href
from projects.models import Project
from projects.ownership import ownership_of

BLANK_ROWS = 2  # empty link rows offered below the existing ones


def ownership_section(
    project: Project,
    *,
    editing: bool = False,
    rows: list[dict[str, str]] | None = None,
    form: Any = None,
    errors: dict[str, str] | None = None,
    notice: str = "",
) -> dict[str, Any]:
    """The read view, or the edit form (as given after a refusal, with each error under its field's key:
    ``team``, ``oncall``, ``links``, ``links[2].url``)."""
    owned, errors = ownership_of(project), errors or {}
    if rows is None:
        rows = [link.body() for link in owned.links]
        rows += [{"kind": "docs", "title": "", "url": ""}] * min(BLANK_ROWS, MAX_LINKS - len(rows))
    return {
        "ownership": owned,
        "oncall_href": oncall_href(owned.oncall),
        "ownership_editing": editing,
        "ownership_form": form or {"team": owned.team, "oncall": owned.oncall},
        "ownership_rows": [
            {**row, "index": i, "errors": {k: errors.get(f"links[{i}].{k}", "") for k in ("kind", "title", "url")}}
            for i, row in enumerate(rows)
        ],
        "ownership_errors": errors,
        "ownership_error": errors.get(""),
        "ownership_notice": notice,
        "link_kinds": LINK_KINDS,
        "oncall_forms": ONCALL_FORMS,
        "max_links": MAX_LINKS,
    }
