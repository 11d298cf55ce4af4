"""The portal's one reader of usage metrics: PromQL over Prometheus' HTTP API (``PROMETHEUS_URL``).

Answers are cached per scrape interval (``PROMETHEUS_SCRAPE_SECONDS``) in the portal's cache: a page asked again
within an interval costs no query, and no answer is older than one interval plus the query's own time. A range
query's end is aligned to its step so that the cached answer fits every caller within the interval. The
expressions are built by ``usage.use`` from names it checked; nothing a user types reaches PromQL unquoted.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass

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


def _get(path: str, params: dict[str, str]) -> list[Series]:
    if not configured():
        raise Unavailable("No usage metrics: PROMETHEUS_URL is not set (docs/operations.md).", retry_after=60)
    url = settings.PROMETHEUS_URL.rstrip("/") + path
    try:
        resp = httpx.get(url, params=params, timeout=settings.PROMETHEUS_TIMEOUT_SECONDS)
        body = resp.json()
    except (httpx.HTTPError, ValueError) as exc:
        raise Unavailable(f"Usage metrics did not answer ({type(exc).__name__}).", retry_after=10) from exc
    if resp.status_code != 200 or body.get("status") != "success":
        raise Unavailable(f"Usage metrics refused the query: {body.get('error', resp.status_code)}.", retry_after=10)
    out = []
    for item in body["data"]["result"]:
        raw = item.get("values") or [item["value"]]
        out.append(Series(item["metric"], [(float(t), float(v)) for t, v in raw if math.isfinite(float(v))]))
    return out


def _cached(kind: str, params: dict[str, str]) -> list[Series]:
    interval = scrape_seconds()
    text = kind + "\0" + "\0".join(f"{k}={v}" for k, v in sorted(params.items()))
    key = f"prom:{int(time.time() // interval)}:{hashlib.sha256(text.encode()).hexdigest()}"
    found = cache.get(key)
    if found is None:
        found = _get(f"/api/v1/{kind}", params)
        cache.set(key, found, interval)
    return list(found)


def query(expr: str) -> list[Series]:
    """An instant query at now."""
    return _cached("query", {"query": expr})


def query_range(expr: str, seconds: int, points: int = 120) -> list[Series]:
    """``expr`` over the last ``seconds``, about ``points`` points (a step no shorter than the scrape interval)."""
    step = max(scrape_seconds(), math.ceil(seconds / points))
    end = (int(time.time()) // step) * step
    return _cached("query_range", {"query": expr, "start": str(end - seconds), "end": str(end), "step": str(step)})
