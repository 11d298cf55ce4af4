"""The portal's one reader of usage metrics: PromQL over Prometheus' HTTP API (``PROMETHEUS_URL``).

Answers are cached per scrape interval (``PROMETHEUS_SCRAPE_SECONDS``) in the portal's cache: a page asked again
within an interval costs no query, and no answer is older than one interval plus the query's own time. A range
query's end is aligned to its step so that the cached answer fits every caller within the interval. The
expressions are built by ``usage.use`` from names it checked; nothing a user types reaches PromQL unquoted.
Queries share one HTTP client per process (kept-alive connections; one TLS context instead of one per query).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx
from django.conf import settings
from django.core.cache import cache

from pincompute.errors import Unavailable

Labels = dict[str, str]


@dataclass(frozen=True)
class Series:
    labels: Labels
    points: list[tuple[float, float]]  # (unix seconds, value); an instant query has one


def configured() -> bool:
    return bool(settings.PROMETHEUS_URL)


def scrape_seconds() -> int:
    return max(1, int(settings.PROMETHEUS_SCRAPE_SECONDS))


def quote(value: str) -> str:
    """A PromQL string literal (double-quoted, backslash and quote escaped)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _require_configured() -> None:
    if not configured():
        raise Unavailable("No usage metrics: PROMETHEUS_URL is not set (docs/operations.md).", retry_after=60)


@functools.cache
def _client() -> httpx.Client:
    """One pooled client per process, as the log archive's (``debugging.logs.archive._http``); a connection Prometheus
    closed (a restart) is dropped when next taken from the pool. Celery forks its workers before any task queries."""
    return httpx.Client()


def _fetch(path: str, params: dict[str, str]) -> bytes:
    """Prometheus' answer as it came (cached as bytes: one blob in Redis, parsed once per process)."""
    _require_configured()
    url = settings.PROMETHEUS_URL.rstrip("/") + path
    try:
        resp = _client().get(url, params=params, timeout=settings.PROMETHEUS_TIMEOUT_SECONDS)
    except httpx.HTTPError as exc:
        raise Unavailable(f"Usage metrics did not answer ({type(exc).__name__}).", retry_after=10) from exc
    if resp.status_code != 200:
        why = _error(resp.content) or resp.status_code
        raise Unavailable(f"Usage metrics refused the query: {why}.", retry_after=10)
    return resp.content


def _error(raw: bytes) -> str:
    try:
        return str(json.loads(raw).get("error", ""))
    except (ValueError, AttributeError):
        return ""


def _parse(raw: bytes) -> list[Series]:
    try:
        body = json.loads(raw)
        result = body["data"]["result"]
    except (ValueError, KeyError, TypeError) as exc:
        raise Unavailable("Usage metrics answered something that is not a query result.", retry_after=10) from exc
    out = []
    for item in result:
        raw_points = item.get("values") or [item["value"]]
        points = [(float(t), v) for t, v in ((t, float(v)) for t, v in raw_points) if math.isfinite(v)]
        out.append(Series(item["metric"], points))
    return out


def _get(path: str, params: dict[str, str]) -> list[Series]:
    return _parse(_fetch(path, params))


def _cached(kind: str, params: dict[str, str]) -> list[Series]:
    """This process's parsed answer, else the shared cache's bytes, else Prometheus; kept until the interval ends."""
    _require_configured()  # before the caches: an answer cached from another Prometheus is not this one's
    interval = scrape_seconds()
    text = settings.PROMETHEUS_URL + "\0" + kind + "\0" + "\0".join(f"{k}={v}" for k, v in sorted(params.items()))
    key = f"prom:{int(time.time() // interval)}:{hashlib.sha256(text.encode()).hexdigest()}"
    found = memo.get(key)
    if found is None:
        raw = cache.get(key)
        if raw is None:
            raw = _fetch(f"/api/v1/{kind}", params)
            cache.set(key, raw, interval)
        found = memo.put(key, _parse(raw))
    return found


class Memo:
    """A few answers of the current interval in this process (keys carry the interval, so old ones just age out)."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._items: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> Any:
        with self._lock:
            return self._items.get(key)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def put(self, key: str, value: Any) -> Any:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.pop(next(iter(self._items)))
        return value


memo = Memo()


def query(expr: str) -> list[Series]:
    """An instant query at now."""
    return _cached("query", {"query": expr})


def query_range(expr: str, seconds: int, points: int = 120) -> list[Series]:
    """``expr`` over the last ``seconds``, about ``points`` points (a step no shorter than the scrape interval)."""
    step = max(scrape_seconds(), math.ceil(seconds / points))
    end = (int(time.time()) // step) * step
    return _cached("query_range", {"query": expr, "start": str(end - seconds), "end": str(end), "step": str(step)})
