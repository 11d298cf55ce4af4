"""The project pages' helpers: htmx headers, an answer's text, and the onboarding wizard's steps and posts."""

from __future__ import annotations

import html
import re

from django.contrib.auth.models import Group

from projects.models import Membership, Project, TierQuota

HX = {"HTTP_HX_REQUEST": "true"}


def text(response) -> str:
    return html.unescape(response.content.decode())


BASICS = {"name": "search", "display_name": "Search", "team": "search", "cost_center": "CC-9", "description": ""}


def nothing_created() -> bool:
    return not (Project.objects.exists() or Membership.objects.exists() or TierQuota.objects.exists())


def start(client) -> str:
    """A new wizard's basics URL (the id is in the form's action; /projects/new/ redirects to it)."""
    page = client.get("/projects/new/", follow=True).content.decode()
    return re.search(r'action="(/projects/new/[0-9a-f]+/basics/)"', page).group(1)


def step(url: str, name: str) -> str:
    return url.replace("/basics/", f"/{name}/")


def members_post(*rows: tuple[str, str, str], go: str = "next") -> dict[str, str]:
    data = {"members-TOTAL_FORMS": str(len(rows)), "members-INITIAL_FORMS": "0", "go": go}
    for i, (kind, name, role) in enumerate(rows):
        data.update({f"members-{i}-kind": kind, f"members-{i}-name": name, f"members-{i}-role": role})
    return data


def quotas_post(go: str = "next", **tiers: dict[str, str]) -> dict[str, str]:
    data = {"go": go}
    for tier in ("reserved", "ondemand", "preemptible"):
        amounts = {"cpu": "0", "memory": "0", "gpu": "0", "pods": "0", **tiers.get(tier, {})}
        data.update({f"{tier}-{k}": v for k, v in amounts.items()})
    return data


def invalid_feedback(page: str) -> list[str]:
    """The errors shown beside fields, as text."""
    found = re.findall(r'class="invalid-feedback[^"]*"[^>]*>(.*?)</div>', page, re.S)
    return [html.unescape(re.sub(r"\s+", " ", m)).strip() for m in found]


def walk_to_review(client, wizard, other_user, *, reserved=None) -> str:
    Group.objects.get_or_create(name="search-oncall")
    client.post(wizard, {**BASICS, "go": "next"}, **HX)
    client.post(
        step(wizard, "members"),
        members_post(("user", other_user.username, "viewer"), ("group", "search-oncall", "developer")),
        **HX,
    )
    quotas = quotas_post(
        reserved=reserved or {"cpu": "4", "memory": "8Gi", "pods": "20"}, ondemand={"cpu": "2", "memory": "4Gi"}
    )
    return client.post(step(wizard, "quotas"), quotas, **HX).content.decode()
