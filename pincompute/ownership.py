"""Who owns a project or a workload and where its tools are: the on-call contact and the links.

One check for every way in: the portal's project service, and a workload's annotations (``ONCALL_ANNOTATION``,
``LINKS_ANNOTATION``, checked by ``pincompute.specs.validate``, so the form, YAML, the API and ``kubectl`` on the
host get the same sentences). A workload's team is its ``spec.team``; what it leaves unset it takes from its project.

The on-call contact is one of three forms: an email address (``ads-oncall@example.com``), a chat handle or channel
(``@ads-oncall``, ``#ads-oncall``), or an http(s) URL of a pager schedule. A link is ``{kind, title, url}``; the url
is http(s) with a host and no user or password in it (a link is shown to every member).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

from pincompute.errors import FieldError

ONCALL_ANNOTATION = "pincompute.io/oncall"
LINKS_ANNOTATION = "pincompute.io/links"

MAX_LINKS = 10
MAX_TITLE = 80
MAX_URL = 500
MAX_ONCALL = 200
ONCALL_FORMS = (
    "an email (ads-oncall@example.com), a chat handle or channel (@ads-oncall, #ads-oncall) or an http(s) pager URL"
)


class LinkKind(StrEnum):
    REPOSITORY = "repository"
    DOCS = "docs"
    RUNBOOK = "runbook"
    DASHBOARD = "dashboard"
    OTHER = "other"


LINK_KINDS = tuple(k.value for k in LinkKind)
_EMAIL = re.compile(
    r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+"
)
_HANDLE = re.compile(r"[@#][A-Za-z0-9][A-Za-z0-9._-]{0,79}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Link:
    kind: str
    title: str
    url: str

    def body(self) -> dict[str, str]:
        return {"kind": self.kind, "title": self.title, "url": self.url}


def url_problem(value: str) -> str | None:
    """Why ``value`` is not a link we show (http or https, a host, no credentials, no spaces); None when it is one."""
    if len(value) > MAX_URL:
        return f"Give a URL of at most {MAX_URL} characters."
    if _CONTROL.search(value) or " " in value:
        return "A URL has no spaces or control characters."
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 (raises ValueError on a bad port)
    except ValueError:
        return f"{value!r} is not a URL."
    if parts.scheme not in ("http", "https"):
        return "Give an http:// or https:// URL."
    if not parts.hostname:
        return "Give a URL with a host (https://example.com/...)."
    if parts.username is not None or parts.password is not None:
        return "A link must not carry a user or password."
    return None


def oncall_problem(value: str) -> str | None:
    """Why ``value`` is not an on-call contact (``ONCALL_FORMS``); "" (none) is allowed."""
    if not value:
        return None
    if len(value) > MAX_ONCALL:
        return f"Give at most {MAX_ONCALL} characters."
    if value.startswith(("http://", "https://")):
        return url_problem(value)
    if _EMAIL.fullmatch(value) or _HANDLE.fullmatch(value):
        return None
    return f"{value!r} is not an on-call contact; give {ONCALL_FORMS}."


def oncall_href(oncall: str) -> str:
    """Where a checked on-call contact leads: a mail, the pager's page, or nowhere (a chat handle)."""
    if oncall.startswith(("http://", "https://")):
        return oncall
    return f"mailto:{oncall}" if _EMAIL.fullmatch(oncall) else ""


def parse_links(raw: object, path: str, errors: list[FieldError]) -> tuple[Link, ...]:
    """The links of ``raw`` (a list of ``{kind, title, url}``); every problem goes to ``errors`` with its path
    (``links[2].url``)."""
    if not isinstance(raw, list):
        errors.append(FieldError(path, "Give a list of links, each {kind, title, url}."))
        return ()
    if len(raw) > MAX_LINKS:
        errors.append(FieldError(path, f"Give at most {MAX_LINKS} links."))
        return ()
    links = []
    for i, item in enumerate(raw):
        where = f"{path}[{i}]"
        if not isinstance(item, dict):
            errors.append(FieldError(where, "Give an object with kind, title and url."))
            continue
        before = len(errors)
        for key in sorted(set(item) - {"kind", "title", "url"}, key=str):
            errors.append(FieldError(f"{where}.{key}", "Not a field of a link (kind, title, url)."))
        kind = item.get("kind", LinkKind.OTHER.value)
        if kind not in LINK_KINDS:
            errors.append(FieldError(f"{where}.kind", f"Use one of {', '.join(LINK_KINDS)}."))
        title, url = item.get("title"), item.get("url")
        if not isinstance(title, str) or not title.strip():
            errors.append(FieldError(f"{where}.title", "Give a title."))
        elif len(title.strip()) > MAX_TITLE or _CONTROL.search(title):
            errors.append(FieldError(f"{where}.title", f"Give at most {MAX_TITLE} characters on one line."))
        if not isinstance(url, str) or not url.strip():
            errors.append(FieldError(f"{where}.url", "Give a URL."))
        elif problem := url_problem(url.strip()):
            errors.append(FieldError(f"{where}.url", problem))
        if len(errors) == before:
            links.append(Link(str(kind), str(title).strip(), str(url).strip()))
    return tuple(links)


def check_annotations(annotations: object, path: str, errors: list[FieldError]) -> None:
    """The ownership annotations of a workload's ``metadata.annotations`` (when present and strings: the generic
    annotation check reports the rest)."""
    if not isinstance(annotations, Mapping):
        return
    oncall = annotations.get(ONCALL_ANNOTATION)
    if isinstance(oncall, str) and (problem := oncall_problem(oncall)):
        errors.append(FieldError(f"{path}.{ONCALL_ANNOTATION}", problem))
    links = annotations.get(LINKS_ANNOTATION)
    if isinstance(links, str):
        where = f"{path}.{LINKS_ANNOTATION}"
        try:
            parsed = json.loads(links)
        except ValueError:
            errors.append(
                FieldError(
                    where, 'Give a JSON list of links: [{"kind": "docs", "title": "...", "url": "https://..."}].'
                )
            )
            return
        parse_links(parsed, where, errors)


@dataclass(frozen=True)
class Ownership:
    """What a page, the API and search show: the team, the on-call contact and the links, and which of them a
    workload took from its project (``inherited``: field names)."""

    team: str
    oncall: str
    links: tuple[Link, ...]
    inherited: tuple[str, ...] = ()

    def body(self) -> dict[str, Any]:
        """The team, on-call contact and links as the API gives them (a workload's adds ``inherited``)."""
        return {"team": self.team, "oncall": self.oncall, "links": [link.body() for link in self.links]}


def workload_ownership(manifest: Mapping[str, Any], project: Ownership) -> Ownership:
    """A workload's ownership: its ``spec.team`` and its annotations, each unset one taken from its project's. An
    annotation that does not parse (written before this check, or past a break-glass) counts as unset."""
    annotations = (manifest.get("metadata") or {}).get("annotations") or {}
    spec = manifest.get("spec") or {}
    errors: list[FieldError] = []
    oncall = annotations.get(ONCALL_ANNOTATION)
    own_oncall = oncall if isinstance(oncall, str) and oncall and oncall_problem(oncall) is None else ""
    links: tuple[Link, ...] = ()
    raw = annotations.get(LINKS_ANNOTATION)
    if isinstance(raw, str):
        try:
            links = parse_links(json.loads(raw), LINKS_ANNOTATION, errors)
        except ValueError:
            links = ()
    if errors:
        links = ()
    own_team = spec.get("team") if isinstance(spec.get("team"), str) else ""
    inherited = tuple(name for name, own in (("team", own_team), ("oncall", own_oncall), ("links", links)) if not own)
    return Ownership(own_team or project.team, own_oncall or project.oncall, links or project.links, inherited)
