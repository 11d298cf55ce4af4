"""One search across what a user may see: the page's box, ``GET /api/v1/search/`` and ``pincompute search``.

Results are ranked by how the name matches (exact, prefix, a word's prefix, anywhere), then by kind in the order
people look for things (projects first), then by name. Nothing is written; a search is not audited (a read).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from base.errors import Invalid
from base.permissions import is_platform_admin
from search import sources
from search.gone_pods import gone_pods
from search.sources import Hit

MAX_QUERY = 100
DEFAULT_LIMIT = 20
MAX_LIMIT = 100
KIND_ORDER = sources.KIND_ORDER


@dataclass
class Results:
    query: str
    hits: list[Hit] = field(default_factory=list)
    more: bool = False  # more matched than the limit


def clean_query(value: Any) -> str:
    text = str(value or "").strip()
    if not text:
        raise Invalid.on("q", "type at least one character")
    if len(text) > MAX_QUERY:
        raise Invalid.on("q", f"at most {MAX_QUERY} characters")
    return text


def search(user: Any, query: Any, limit: int = DEFAULT_LIMIT) -> Results:
    """The best ``limit`` matches of ``query`` among what ``user`` may see."""
    text = clean_query(query)
    lowered = text.lower()
    visible = sources.Seen.visible_to(user)
    admin = is_platform_admin(user)
    best = sources.Best(limit + 1)  # the sources, lazy, skip what can no longer get in
    found = itertools.chain(
        sources.projects(visible.values(), lowered),
        sources.workloads(visible, lowered, best),
        sources.deleted_workloads(visible, lowered, every_project=admin),
        sources.pods(visible, lowered, best),
        gone_pods(user, visible, lowered),
    )
    if admin:
        found = itertools.chain(
            found,
            sources.clusters(lowered),
            sources.nodes(lowered, best),
            sources.users(lowered),
            sources.groups(lowered),
            sources.audit_entries(lowered),
        )
    for one in found:
        best.offer(one)
    return Results(text, [make() for *_, make in best.kept[:limit]], len(best.kept) > limit)
