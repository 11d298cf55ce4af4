"""Archived logs: a project's pods' lines from the log archive (VictoriaLogs), live pods and gone ones alike.

The nodes' agent ships every line with its stream labels (cluster, namespace, project, workload, kind, pod,
container, source; ``devtools/localcp/pods/ship.py`` in the local stack, the chart's README for production). The
portal is the only reader: the store is never exposed to users.

**Tenancy** is never in the query text. The authorized project's namespace, and the pod/container/workload narrowing
(checked as names first), go in ``extra_stream_filters`` as JSON: VictoriaLogs applies them to the whole query,
subqueries included, whatever the query says. The scope is the namespace, not the ``project`` label: the agent reads
the namespace from where the pod runs, while the label comes from the namespace's metadata (a namespace made by hand
may lack it). What the user types is one quoted phrase (JSON string
escaping, which LogsQL's quoted strings accept), so ``or``, ``{...}``, pipes or quotes in it are words to find, never
LogsQL.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from django.conf import settings

from debugging.policy import valid_name
from pincompute.errors import FieldError, Invalid, Unavailable
from projects.access import require_platform_admin, visible_project
from projects.models import Project

DEFAULT_LIMIT = 1000
MAX_LIMIT = 5000
MAX_QUERY = 500
MAX_OFFSET = 100_000  # lines skipped by paging, at most (a narrower time range reads further back)
ORDERS = {"newest": "desc", "oldest": "asc"}
STREAMS = ("stdout", "stderr")
_DURATION = re.compile(r"^(\d{1,6})([smhd])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
NAME_FIELDS = ("workload", "pod", "container", "cluster")
SHOWN = "_time, _msg, cluster, pod, container, source, stream"  # what a line shows: half the bytes of every field


@dataclass(frozen=True)
class ArchivedLine:
    time: str
    cluster: str
    pod: str
    container: str
    source: str  # "console" or the file's path
    stream: str  # stdout/stderr for console lines
    message: str


@dataclass(frozen=True)
class ArchiveQuery:
    """A checked request: every value here is safe to send (names checked, text quoted, times parsed).

    ``end`` is always set (now, when the user gave no ``until``): the next page of the same window is ``offset``
    lines further, however many lines arrive meanwhile."""

    scope: dict[str, str]
    text: str
    start: str
    end: str
    limit: int
    regex: str = ""
    source: str = ""
    stream: str = ""
    order: str = "newest"
    offset: int = 0

    def filters(self) -> str:
        """The user's filters, each a quoted LogsQL string (JSON escaping): words to match, never LogsQL."""
        parts = [phrase(self.text)] if self.text else []
        parts += [f"~{phrase(self.regex)}"] if self.regex else []
        parts += [f"source:={phrase(self.source)}"] if self.source else []
        parts += [f"stream:={phrase(self.stream)}"] if self.stream else []
        return " ".join(parts) or "*"

    def params(self) -> dict[str, str]:
        pipes = f"sort by (_time {ORDERS[self.order]}) | offset {self.offset} | limit {self.limit} | fields {SHOWN}"
        out = {"query": f"{self.filters()} | {pipes}"}  # our pipes, after the user's filters
        out["extra_stream_filters"] = json.dumps(self.scope, separators=(",", ":"))
        out.update({k: v for k, v in (("start", self.start), ("end", self.end)) if v})
        return out

    def next_page(self, shown: int) -> dict[str, str] | None:
        """The query string of the next page (the same window, ``offset`` further), None after the last."""
        if shown < self.limit or self.offset + shown > MAX_OFFSET:
            return None
        return {"until": self.end, "offset": str(self.offset + shown)}


def time_key(value: str) -> str:
    """An RFC 3339 UTC time that sorts as text: VictoriaLogs trims a fraction's trailing zeros (``.2179Z`` is
    ``.217900000``), which would sort after ``.217907Z``."""
    stamp, dot, fraction = value.removesuffix("Z").partition(".")
    return f"{stamp}.{fraction.ljust(9, '0') if dot else '000000000'}"


def phrase(text: str) -> str:
    """The user's text as one LogsQL quoted phrase (``\\`` and ``"`` escaped, control characters as escapes)."""
    return json.dumps(text, ensure_ascii=False)


def parse_time(name: str, value: str, now: datetime) -> str:
    """``2h``/``30m``/``7d`` (before now) or an RFC 3339 time -> RFC 3339 UTC; "" for none."""
    if not value:
        return ""
    m = _DURATION.match(value)
    if m:
        when = now - timedelta(**{_UNITS[m.group(2)]: int(m.group(1))})
    else:
        try:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise Invalid.on(name, "must be a duration such as 30m, 2h or 7d, or an RFC 3339 time") from None
        if when.tzinfo is None:
            raise Invalid.on(name, "must carry a time zone (Z or +00:00)")
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def build_query(project: Project, params: Mapping[str, str], now: datetime | None = None) -> ArchiveQuery:
    """Check what the user asked for; the scope is the project's, whatever ``params`` holds."""
    now = now or datetime.now(UTC)
    errors: list[FieldError] = []
    scope = {"namespace": project.namespace}
    for name in NAME_FIELDS:
        value = params.get(name, "")
        if value and not valid_name(value):
            errors.append(FieldError(name, "must be a Kubernetes name (lowercase letters, digits, '-', '.')"))
        elif value:
            scope[name] = value
    text = params.get("q", "")
    if len(text) > MAX_QUERY or "\x00" in text:
        errors.append(FieldError("q", f"must be at most {MAX_QUERY} characters, without NUL"))
    regex = params.get("regex", "")
    if len(regex) > MAX_QUERY or "\x00" in regex:
        errors.append(FieldError("regex", f"must be at most {MAX_QUERY} characters, without NUL"))
    elif regex:
        try:
            re.compile(regex)
        except re.error as exc:
            errors.append(FieldError("regex", f"is not a regular expression: {exc}"))
    source = params.get("source", "")
    if len(source) > 4096 or "\x00" in source:
        errors.append(FieldError("source", "must be console or a file's path (at most 4096 characters)"))
    stream = params.get("stream", "")
    if stream and stream not in STREAMS:
        errors.append(FieldError("stream", "must be stdout or stderr"))
    order = params.get("order", "") or "newest"
    if order not in ORDERS:
        errors.append(FieldError("order", "must be newest or oldest"))
    limit = _whole(params, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT, errors)
    offset = _whole(params, "offset", 0, 0, MAX_OFFSET, errors)
    times = {}
    for name in ("since", "until"):
        try:
            times[name] = parse_time(name, params.get(name, ""), now)
        except Invalid as exc:
            errors.extend(exc.fields)
    if not errors and times["since"] and times["until"] and times["since"] >= times["until"]:
        errors.append(FieldError("until", "must be after since"))
    if errors:
        raise Invalid(fields=errors)
    end = times["until"] or now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return ArchiveQuery(scope, text, times["since"], end, limit, regex, source, stream, order, offset)


def _whole(params: Mapping[str, str], name: str, default: int, low: int, high: int, errors: list[FieldError]) -> int:
    raw = params.get(name, "")
    if not raw:
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        errors.append(FieldError(name, f"must be a whole number from {low} to {high}"))
        return default
    return int(raw)


@functools.cache
def _http() -> httpx.Client:
    """One pooled client per process: a new one per query spent more building its TLS context than the query took."""
    return httpx.Client(timeout=settings.LOG_ARCHIVE_TIMEOUT_SECONDS)


def _store(path: str, params: dict[str, str]) -> httpx.Response:
    base = settings.LOG_ARCHIVE_URL
    if not base:
        raise Unavailable("No log archive is configured (LOG_ARCHIVE_URL).", retry_after=60)
    try:
        resp = _http().post(f"{base.rstrip('/')}{path}", data=params)
    except httpx.HTTPError as exc:
        raise Unavailable(f"The log archive is unreachable ({type(exc).__name__}); try again shortly.") from exc
    if resp.status_code >= 500:
        raise Unavailable(f"The log archive answered {resp.status_code}; try again shortly.")
    if resp.status_code != 200:
        raise Invalid.on("q", f"the log archive refused the query: {resp.text[:200]}")
    return resp


def _line(row: dict[str, Any]) -> ArchivedLine:
    return ArchivedLine(
        time=str(row.get("_time", "")),
        cluster=str(row.get("cluster", "")),
        pod=str(row.get("pod", "")),
        container=str(row.get("container", "")),
        source=str(row.get("source", "")),
        stream=str(row.get("stream", "")),
        message=str(row.get("_msg", "")),
    )


@dataclass(frozen=True)
class ArchivePage:
    project: Project
    lines: list[ArchivedLine]
    query: ArchiveQuery
    next: dict[str, str] | None  # the query string of the next page (with the request's other parameters)


def read_archive(actor: Any, project_name: str, params: Mapping[str, str]) -> tuple[Project, list[ArchivedLine]]:
    """The matching lines of the project's pods (newest first unless ``order=oldest``); ``NotFound`` for a project
    the actor cannot see, ``Invalid`` naming the field, ``Unavailable`` while the store is down."""
    page = read_archive_page(actor, project_name, params)
    return page.project, page.lines


def read_archive_page(actor: Any, project_name: str, params: Mapping[str, str]) -> ArchivePage:
    """As ``read_archive``, with the query as checked and where the next page starts."""
    project = visible_project(actor, project_name)
    query = build_query(project, params)
    resp = _store("/select/logsql/query", query.params())
    rows = [json.loads(raw) for raw in resp.text.splitlines() if raw.strip()]
    rows.sort(key=lambda r: time_key(str(r.get("_time", ""))), reverse=query.order == "newest")
    return ArchivePage(project, [_line(r) for r in rows], query, query.next_page(len(rows)))


def archived_pods(actor: Any, project_name: str, params: Mapping[str, str]) -> list[tuple[str, int]]:
    """The pods (live or gone) the archive holds lines of, for the same scope, with their line counts."""
    project = visible_project(actor, project_name)
    query = build_query(project, {k: v for k, v in params.items() if k != "pod"})
    args = {k: v for k, v in query.params().items() if k != "limit"} | {"field": "pod", "query": "*"}
    resp = _store("/select/logsql/stream_field_values", args)
    values = resp.json().get("values") or []
    return sorted(((str(v["value"]), int(v.get("hits", 0))) for v in values), key=lambda p: p[0])


def pod_lines_after(
    actor: Any, project_name: str, scope: Mapping[str, str], after: str = "", tail: int = DEFAULT_LIMIT
) -> list[ArchivedLine]:
    """One pod's archived lines, oldest first, for a live follow carrying on into the archive: every line stamped
    after ``after`` (an RFC 3339 time: the last line shown; the pages of one frozen window, so no line twice), or
    with no ``after`` its last ``tail`` lines. ``scope``: pod, container, cluster, source (and since)."""
    params = {k: v for k, v in scope.items() if v}
    if not after:
        newest = read_archive_page(actor, project_name, {**params, "limit": str(min(max(tail, 1), MAX_LIMIT))})
        return newest.lines[::-1]
    cut, lines = time_key(after), []
    query: dict[str, str] = {**params, "since": after, "order": "oldest", "limit": str(MAX_LIMIT)}
    while True:
        page = read_archive_page(actor, project_name, query)
        lines += [line for line in page.lines if time_key(line.time) > cut]  # ``since`` is inclusive
        if page.next is None:
            return lines
        query |= page.next


_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def _streams(args: Mapping[str, str]) -> list[dict[str, str]]:
    """The label sets of the streams ``args`` select (one store call)."""
    values = _store("/select/logsql/streams", args).json().get("values") or []
    return [{k: json.loads(f'"{v}"') for k, v in _LABEL.findall(str(row.get("value", "")))} for row in values]


def archived_streams_everywhere(actor: Any, since: str = "7d", limit: int = MAX_LIMIT) -> list[dict[str, str]]:
    """Every project's stream label sets since ``since``, in one store call: platform admins only (the one read of
    the archive without a project's scope; search's gone pods for a user who sees every project)."""
    require_platform_admin(actor, "read every project's archived streams")
    query = build_query(Project(name="every-project"), {"since": since})  # for the window only: its scope is dropped
    drop = ("query", "extra_stream_filters")
    args = {k: v for k, v in query.params().items() if k not in drop} | {"query": "*", "limit": str(limit)}
    return _streams(args)


def archived_streams(actor: Any, project_name: str, since: str = "7d", limit: int = MAX_LIMIT) -> list[dict[str, str]]:
    """The label sets (cluster, workload, pod, container, source...) of the project's streams in the archive since
    ``since``: one store call, whatever the pods' line counts."""
    project = visible_project(actor, project_name)
    query = build_query(project, {"since": since})
    args = {k: v for k, v in query.params().items() if k != "query"} | {"query": "*", "limit": str(limit)}
    return _streams(args)
