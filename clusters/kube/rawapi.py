"""Raw JSON over an ApiClient: LIST pages and WATCH streams without model deserialization.

The generated models cost ~10x the JSON parse for a 10k-pod list; the cache only needs dicts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from kubernetes.client import ApiClient
from urllib3.exceptions import ProtocolError
from urllib3.response import BaseHTTPResponse

Timeout = tuple[float, float]
AUTH = ["BearerToken"]


class WatchGone(Exception):
    """The resourceVersion we watch from is no longer available: relist."""


def open_get(api: ApiClient, path: str, query: list[tuple[str, Any]], timeout: Timeout) -> BaseHTTPResponse:
    """GET that returns the unread urllib3 response; raises ApiException on non-2xx (reads the body)."""
    resp = api.call_api(
        path, "GET", query_params=query, header_params={"Accept": "application/json"}, auth_settings=AUTH,
        _preload_content=False, _request_timeout=timeout, _return_http_data_only=True,
    )
    return resp  # type: ignore[no-any-return]


def get_json(api: ApiClient, path: str, query: list[tuple[str, Any]], timeout: Timeout) -> dict[str, Any]:
    resp = open_get(api, path, query, timeout)
    try:
        data = resp.data
    finally:
        resp.release_conn()
    return json.loads(data)  # type: ignore[no-any-return]


def list_page(api: ApiClient, path: str, timeout: Timeout, limit: int, cont: str | None) -> dict[str, Any]:
    query: list[tuple[str, Any]] = [("limit", limit)]
    if cont:
        query.append(("continue", cont))
    return get_json(api, path, query, timeout)


def open_watch(api: ApiClient, path: str, resource_version: str, timeout_seconds: int,
               connect_timeout: float) -> BaseHTTPResponse:
    query: list[tuple[str, Any]] = [
        ("watch", "true"), ("resourceVersion", resource_version), ("allowWatchBookmarks", "true"),
        ("timeoutSeconds", timeout_seconds),
    ]
    # Read timeout past the server's own timeout: a quiet collection must not look like a dead link.
    return open_get(api, path, query, (connect_timeout, timeout_seconds + 30))


def iter_events(resp: BaseHTTPResponse) -> Iterator[dict[str, Any]]:
    """Decode the newline-delimited JSON watch stream; raises WatchGone on an ERROR 410 event."""
    buf = b""
    for chunk in resp.stream(amt=None, decode_content=False):
        buf += chunk
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                break
            line, buf = buf[:nl], buf[nl + 1:]
            if not line.strip():
                continue
            try:
                event: dict[str, Any] = json.loads(line)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                # A frame cut by a dropped connection: a broken stream, so reconnect, don't crash.
                raise ProtocolError(f"corrupt watch frame ({exc.__class__.__name__})") from exc
            if event.get("type") == "ERROR":
                status = event.get("object") or {}
                if status.get("code") == 410:
                    raise WatchGone(status.get("message", "410 Gone"))
                raise WatchError(status)
            yield event


class WatchError(Exception):
    """A non-410 ERROR event: the watch ended abnormally; reconnect from the last resourceVersion."""

    def __init__(self, status: dict[str, Any]) -> None:
        super().__init__(f"{status.get('code')} {status.get('reason')}: {status.get('message')}")
        self.status = status
