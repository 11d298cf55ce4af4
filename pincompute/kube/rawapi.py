"""Raw JSON over an ApiClient: requests, LIST pages and WATCH streams without model deserialization.

The generated models cost ~10x the JSON parse for a 10k-pod list; callers here only need dicts.
Errors are the client's own: ``ApiException`` (by status) for non-2xx, urllib3/OSError for transport;
``pincompute.kube.apierrors`` maps them to the taxonomy.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, Protocol, TypedDict

from urllib3.exceptions import ProtocolError
from urllib3.response import BaseHTTPResponse

Timeout = tuple[float, float]  # (connect, read) seconds
Obj = dict[str, Any]  # a Kubernetes object as decoded JSON
Query = Sequence[tuple[str, str | int]]
AUTH = ["BearerToken"]


class ApiCaller(Protocol):
    """The part of ``kubernetes.client.ApiClient`` used here (raw, unpreloaded calls)."""

    def call_api(
        self,
        resource_path: str,
        method: str,
        *,
        query_params: Query | None = ...,
        header_params: dict[str, str] | None = ...,
        body: object = ...,
        auth_settings: list[str] | None = ...,
        _return_http_data_only: bool | None = ...,
        _preload_content: bool = ...,
        _request_timeout: Timeout | float | None = ...,
    ) -> BaseHTTPResponse: ...


class WatchEvent(TypedDict):
    type: str  # ADDED | MODIFIED | DELETED | BOOKMARK (ERROR events are raised, never yielded)
    object: Obj


class WatchGone(Exception):
    """The resourceVersion we watch from is no longer available: relist."""


class WatchError(Exception):
    """A non-410 ERROR event: the watch ended abnormally; reconnect from the last resourceVersion."""

    def __init__(self, status: Obj) -> None:
        super().__init__(f"{status.get('code')} {status.get('reason')}: {status.get('message')}")
        self.status = status


def request(
    api: ApiCaller,
    method: str,
    path: str,
    query: Query,
    timeout: Timeout,
    *,
    body: object = None,
    content_type: str = "application/json",
) -> BaseHTTPResponse:
    """Any call, returning the unread urllib3 response; raises ApiException on non-2xx (reads the body)."""
    headers = {"Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = content_type
    return api.call_api(
        path,
        method,
        query_params=list(query),
        header_params=headers,
        body=body,
        auth_settings=AUTH,
        _return_http_data_only=True,
        _preload_content=False,
        _request_timeout=timeout,
    )


def read_json(resp: BaseHTTPResponse) -> Obj:
    """The whole body as a JSON object ({} for an empty body); the connection goes back to the pool."""
    try:
        data = resp.data
    finally:
        resp.release_conn()
    if not data:
        return {}
    doc = json.loads(data)
    if not isinstance(doc, dict):
        raise ProtocolError(f"expected a JSON object, got {type(doc).__name__}")
    return doc


def open_get(api: ApiCaller, path: str, query: Query, timeout: Timeout) -> BaseHTTPResponse:
    return request(api, "GET", path, query, timeout)


def get_json(api: ApiCaller, path: str, query: Query, timeout: Timeout) -> Obj:
    return read_json(open_get(api, path, query, timeout))


def list_page(
    api: ApiCaller,
    path: str,
    timeout: Timeout,
    limit: int,
    cont: str | None,
    label_selector: str | None = None,
    field_selector: str | None = None,
) -> Obj:
    query: list[tuple[str, str | int]] = [("limit", limit)]
    if label_selector:
        query.append(("labelSelector", label_selector))
    if field_selector:
        query.append(("fieldSelector", field_selector))
    if cont:
        query.append(("continue", cont))
    return get_json(api, path, query, timeout)


WATCH_READ_MARGIN = 15  # seconds a watch read may outlast the server's timeoutSeconds before the link counts as dead


def open_watch(
    api: ApiCaller,
    path: str,
    resource_version: str,
    timeout_seconds: int,
    connect_timeout: float,
    label_selector: str | None = None,
    field_selector: str | None = None,
) -> BaseHTTPResponse:
    query: list[tuple[str, str | int]] = [
        ("watch", "true"),
        ("resourceVersion", resource_version),
        ("allowWatchBookmarks", "true"),
        ("timeoutSeconds", timeout_seconds),
    ]
    if label_selector:
        query.append(("labelSelector", label_selector))
    if field_selector:
        query.append(("fieldSelector", field_selector))
    # Read timeout just past the server's own timeout: a healthy watch ends (cleanly) before it, even on a quiet
    # collection, so a read that outlasts it means the link died silently (no reset): reconnect.
    return open_get(api, path, query, (connect_timeout, timeout_seconds + WATCH_READ_MARGIN))


class Stream(Protocol):
    def stream(self, amt: int | None = ..., decode_content: bool | None = ...) -> Iterator[bytes]: ...


def iter_events(resp: Stream) -> Iterator[WatchEvent]:
    """Decode the newline-delimited JSON watch stream.

    Raises WatchGone on an ERROR 410 event, WatchError on any other ERROR event, and ProtocolError for a
    frame cut by a dropped connection (a broken stream: reconnect, don't crash).
    """
    buf = b""
    for chunk in resp.stream(amt=None, decode_content=False):
        buf += chunk
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                break
            line, buf = buf[:nl], buf[nl + 1 :]
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise ProtocolError(f"corrupt watch frame ({exc.__class__.__name__})") from exc
            if not isinstance(event, dict) or not isinstance(event.get("object"), dict):
                raise ProtocolError("corrupt watch frame (not an event)")
            if event.get("type") == "ERROR":
                status: Obj = event["object"]
                if status.get("code") == 410:
                    raise WatchGone(status.get("message", "410 Gone"))
                raise WatchError(status)
            yield WatchEvent(type=str(event.get("type")), object=event["object"])
