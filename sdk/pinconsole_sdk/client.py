"""The Compute API client: configuration, retries with backoff, and one method per endpoint.

Configuration (``load_config``), each value from the first place that has it: the constructor's arguments,
``PINCONSOLE_URL`` / ``PINCONSOLE_TOKEN``, then a config file with ``url`` and ``token``:
``$PINCONSOLE_CONFIG``, else ``$XDG_CONFIG_HOME/pinconsole/config.toml`` (``~/.config/...``), else
``config.json`` beside it. The token is a personal API token, sent as ``Authorization: Bearer <token>``.

Retries (``RetryPolicy``): on 429, 5xx and connection errors, at most ``attempts`` tries, waiting a full-jitter
exponential backoff (uniform in ``[0, min(cap, base * 2**n)]``) or the server's ``Retry-After`` when it sent one
(whichever is longer). A write that is not idempotent (``restart``, ``restart-container``, a POST create) is retried
only when it certainly was not carried out: 429, 503 and connection failures before the request was sent.
This is a copy of the portal's one backoff (``pincompute.kube.retry.backoff``) on purpose: the SDK installs on its
own and speaks only the public API, so it imports nothing of the portal or the platform library.
"""

from __future__ import annotations

import json
import os
import random
import time
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Generic, TypeVar
from urllib.parse import parse_qs, quote, urlsplit

import httpx

from pinconsole_sdk.errors import ApiError, ConfigError, ConnectionFailed, NotFound, error_from_response
from pinconsole_sdk.models import (
    DebugContainer,
    Json,
    Pod,
    PodDebug,
    PodPage,
    ServerVersion,
    Timeline,
    Workload,
    WorkloadPage,
    canonical_kind,
)
from pinconsole_sdk.preview_models import WorkloadPreview

__version__ = "0.1.0"
API_PREFIX = "/api/v1/"
MAX_TIMEOUT = 86400.0  # seconds: a day; a timeout must be positive and at most this
MAX_CONFIG_BYTES = 64 * 1024  # a config file holds a URL and a token: a larger one is not read (/dev/zero)
ENV_URL, ENV_TOKEN, ENV_CONFIG = "PINCONSOLE_URL", "PINCONSOLE_TOKEN", "PINCONSOLE_CONFIG"
T = TypeVar("T")
P = TypeVar("P", WorkloadPage, PodPage)

# Errors with no answer that certainly left the request unsent (safe to retry any request)...
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
# ...and those after which the server may have acted (retried for idempotent requests only).
_MAYBE_SENT = (httpx.ReadTimeout, httpx.WriteTimeout, httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)


# --- configuration ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    url: str | None = None
    token: str | None = None
    source: str = ""  # the config file read, if any


def config_paths(env: Mapping[str, str]) -> list[Path]:
    if env.get(ENV_CONFIG):
        return [Path(env[ENV_CONFIG]).expanduser()]
    base = Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME") or Path.home()) / ".config") / "pinconsole"
    return [base / "config.toml", base / "config.json"]


def read_config_file(path: Path) -> dict[str, Any]:
    """``url`` and ``token`` of a TOML or JSON config file (by its suffix; TOML unless ``.json``)."""
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path} is larger than {MAX_CONFIG_BYTES} bytes: not a config file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (ValueError, RecursionError) as exc:  # TOMLDecodeError is a ValueError
        raise ConfigError(f"{path} is not valid {'JSON' if path.suffix == '.json' else 'TOML'}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a table/object with url and token")
    for key in ("url", "token"):
        if key in data and not isinstance(data[key], str):
            raise ConfigError(f"{path}: {key} must be a string")
    return data


def load_config(env: Mapping[str, str] | None = None, path: str | Path | None = None) -> Config:
    """The URL and token from the environment, else from the first config file that exists (``path`` when
    given: it must exist)."""
    env = os.environ if env is None else env
    url, token = env.get(ENV_URL) or None, env.get(ENV_TOKEN) or None
    source = ""
    if url is None or token is None:
        candidates = [Path(path).expanduser()] if path is not None else config_paths(env)
        explicit = path is not None or bool(env.get(ENV_CONFIG))
        for candidate in candidates:
            if not candidate.exists():
                if explicit:
                    raise ConfigError(f"no config file at {candidate}")
                continue
            data = read_config_file(candidate)
            url, token = url or data.get("url") or None, token or data.get("token") or None
            source = str(candidate)
            break
    return Config(url, token, source)


# --- retries --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5  # tries in all, the first one included
    base: float = 0.5  # seconds: the backoff's first ceiling
    cap: float = 20.0  # seconds: the backoff's largest ceiling
    max_retry_after: float = 120.0  # a longer Retry-After is not waited for: the error is raised
    deadline: float | None = 300.0  # seconds across all tries (by the client's clock); None: no bound
    statuses: frozenset[int] = field(default_factory=lambda: frozenset({429, 500, 502, 503, 504}))

    def backoff(self, retry: int, rng: Callable[[], float]) -> float:
        """Full jitter: uniform in ``[0, min(cap, base * 2**retry)]`` (``retry`` counts from 0)."""
        return float(rng() * min(self.cap, self.base * 2**retry))

    def delay(self, retry: int, retry_after: float | None, rng: Callable[[], float]) -> float:
        jittered = self.backoff(retry, rng)
        return jittered if retry_after is None else max(retry_after, jittered)


NO_RETRY = RetryPolicy(attempts=1)


@dataclass(frozen=True)
class ApplyResult:
    workload: Workload
    created: bool  # False: it existed and was updated (or the dry run answered it)
    unchanged: bool = False  # it existed, and the document changed neither its version nor its labels/annotations

    @property
    def verb(self) -> str:
        """kubectl's word for what happened: created, configured or unchanged."""
        return "created" if self.created else "unchanged" if self.unchanged else "configured"


class Listing(list[T], Generic[T]):
    """The items of a listing; ``problems`` are what the server could not read (a cluster's cache not synced)."""

    problems: list[str]

    def __init__(self, items: Any = (), problems: list[str] | None = None) -> None:
        super().__init__(items)
        self.problems = problems or []


WorkloadList = Listing[Workload]
PodList = Listing[Pod]


# --- the client -------------------------------------------------------------------------------------------------


def _seg(value: str) -> str:
    """``value`` as one path segment: every ``/`` and ``%`` escaped, and ``.`` and ``..`` too (a URL's dot
    segments are removed before it is sent: ``PinApp/../`` would reach ``workloads/``)."""
    if not value:
        raise ValueError("a project, kind and name must not be empty")
    try:
        quoted = quote(value, safe="")
    except UnicodeEncodeError:
        raise ValueError(f"{value.encode('utf-8', 'surrogateescape')!r} is not UTF-8 text") from None
    return quoted.replace(".", "%2E") if quoted in (".", "..") else quoted


def check_token(token: str) -> None:
    """A token is printable ASCII without spaces (``pct_...``): anything else cannot be a header's value."""
    if not all("!" <= c <= "~" for c in token):
        raise ConfigError(
            "the API token must be printable ASCII without spaces or line breaks: check --token, "
            f"${ENV_TOKEN} or the config file"
        )


def check_version(version: str) -> str:
    """An ``If-Match`` version (the workload's, as ``get`` shows it): printable ASCII without quotes."""
    version = version.strip().strip('"')
    if not version or not all("!" <= c <= "~" and c != '"' for c in version):
        raise ValueError(f"{version!r} is not a workload version (get shows it, e.g. 3)")
    return version


def _moment(value: datetime | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return value.isoformat()


class Client:
    """A client of the Compute API. ``transport`` (an ``httpx.BaseTransport``), ``sleep``, ``clock`` and
    ``rng`` are injectable for tests."""

    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        *,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        rng: Callable[[], float] = random.random,
        config_path: str | Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if url is None or token is None:
            config = load_config(env, config_path)
            url, token = url or config.url, token or config.token
        if not url:
            raise ConfigError(f"no portal URL: set {ENV_URL} or url in ~/.config/pinconsole/config.toml")
        if not token:
            raise ConfigError(f"no API token: set {ENV_TOKEN} or token in ~/.config/pinconsole/config.toml")
        check_token(token)
        if not 0 < timeout <= MAX_TIMEOUT:  # also NaN; a longer one overflows the clock of the socket layer
            raise ValueError(f"timeout must be a positive number of seconds, at most {MAX_TIMEOUT:g}: {timeout}")
        base = url.rstrip("/").removesuffix("/api/v1")
        self.url = base
        self.retry = retry or RetryPolicy()
        self._sleep, self._clock, self._rng = sleep, clock, rng
        try:
            self._http = httpx.Client(
                base_url=base,
                transport=transport,
                timeout=httpx.Timeout(timeout),
                follow_redirects=False,
                headers={
                    "Authorization": f"Bearer {token}",
                    "Accept": "application/json",
                    "User-Agent": f"pinconsole-sdk/{__version__}",
                },
            )
        except (httpx.InvalidURL, UnicodeError) as exc:
            raise ConfigError(f"the portal URL {base!r} is not a valid URL: {exc}") from None

    def close(self) -> None:
        self._http.close()

    @property
    def authorization(self) -> str:
        """The ``Authorization`` header this client sends (also on the websocket handshakes of ``streams``)."""
        return str(self._http.headers["Authorization"])

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the one request path: errors and retries ---

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        if_match: str | None = None,
        idempotent: bool | None = None,
    ) -> Any:
        """``method`` on ``/api/v1/<path>``: the decoded JSON answer (None for an empty one), or the typed error
        once the retries are spent. ``idempotent`` defaults to True for GET, PUT and DELETE."""
        return self.send(method, path, params=params, body=body, if_match=if_match, idempotent=idempotent)[1]

    def send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        if_match: str | None = None,
        idempotent: bool | None = None,
    ) -> tuple[int, Any]:
        """As ``request``, with the answer's status: ``(status, decoded body)``."""
        if idempotent is None:
            idempotent = method.upper() in ("GET", "HEAD", "OPTIONS", "PUT", "DELETE")
        headers = {}
        if if_match:
            headers["If-Match"] = f'"{check_version(if_match)}"'
        query = {k: v for k, v in (params or {}).items() if v is not None and v != ""}
        url = API_PREFIX + path.lstrip("/")
        started = self._clock()
        retry = 0
        while True:
            error: Exception
            retry_after: float | None = None
            try:
                response = self._http.request(
                    method, url, params=query, json=body if body is not None else None, headers=headers
                )
            except httpx.TransportError as exc:
                error = ConnectionFailed(f"{method} {self.url}{url}: {type(exc).__name__}: {exc}")
                error.__cause__ = exc
                retryable = isinstance(exc, _NOT_SENT) or (idempotent and isinstance(exc, _MAYBE_SENT))
            else:
                if response.status_code < 400:
                    return response.status_code, (_decode(response) if response.content else None)
                error = error_from_response(
                    response.status_code, _decode(response), response.headers, sent_version=if_match
                )
                assert isinstance(error, ApiError)
                retry_after = error.retry_after
                status = response.status_code
                retryable = status in self.retry.statuses and (idempotent or status in (429, 503))
            if not retryable or retry + 1 >= self.retry.attempts:
                raise error
            if retry_after is not None and retry_after > self.retry.max_retry_after:
                raise error
            delay = self.retry.delay(retry, retry_after, self._rng)
            if self.retry.deadline is not None and self._clock() - started + delay > self.retry.deadline:
                raise error
            self._sleep(delay)
            retry += 1

    def _pages(
        self, path: str, params: dict[str, Any], read: Callable[[Json], P], problems: list[str] | None
    ) -> Iterator[P]:
        """Each page of a listing, following its cursor; ``problems`` collects what the server could not read."""
        while True:
            page = read(self.request("GET", path, params=params))
            if problems is not None:
                problems.extend(p for p in page.problems if p not in problems)
            yield page
            cursor = _cursor_of(page.next)
            if not cursor:
                return
            params = {**params, "cursor": cursor}  # the cursor on our own base URL, never the link's host

    # --- workloads ---

    @staticmethod
    def _one(project: str, kind: str, name: str) -> str:
        return f"projects/{_seg(project)}/workloads/{_seg(canonical_kind(kind))}/{_seg(name)}/"

    def iter_workloads(
        self,
        project: str | None = None,
        kind: str | None = None,
        *,
        tier: str | None = None,
        cluster: str | None = None,
        status: str | None = None,
        label_selector: str | None = None,
        page_size: int | None = None,
        problems: list[str] | None = None,
        full: bool = False,
    ) -> Iterator[Workload]:
        """Every workload the caller can see (of ``project`` when given: a 404 when it is not visible), page by
        page, following the cursor. ``problems`` collects what the server could not read. Summaries unless
        ``full``: no spec, labels, annotations, conditions or shard rows (a tenth of the bytes). ``label_selector``
        is Kubernetes' (``app=web,tier in (a,b)``), matched by the server against the workloads' labels."""
        path = f"projects/{_seg(project)}/workloads/" if project else "workloads/"
        params: dict[str, Any] = {
            "kind": canonical_kind(kind) if kind else None,
            "tier": tier,
            "cluster": cluster,
            "status": status,
            "labelSelector": label_selector,
            "limit": page_size,
            "view": "full" if full else None,
        }
        for page in self._pages(path, params, WorkloadPage.from_dict, problems):
            yield from page.results

    def list_workloads(
        self,
        project: str | None = None,
        kind: str | None = None,
        *,
        tier: str | None = None,
        cluster: str | None = None,
        status: str | None = None,
        label_selector: str | None = None,
        page_size: int | None = None,
        full: bool = False,
    ) -> WorkloadList:
        """Every page of ``iter_workloads`` at once (summaries unless ``full``)."""
        problems: list[str] = []
        items = list(
            self.iter_workloads(
                project,
                kind,
                tier=tier,
                cluster=cluster,
                status=status,
                label_selector=label_selector,
                page_size=page_size,
                problems=problems,
                full=full,
            )
        )
        return WorkloadList(items, problems)

    def get(self, project: str, kind: str, name: str) -> Workload:
        return Workload.from_dict(self.request("GET", self._one(project, kind, name)))

    def apply(
        self, document: Json, project: str | None = None, *, dry_run: bool = False, if_match: str | None = None
    ) -> ApplyResult:
        """Create or update the workload a document describes (PUT: idempotent). ``document`` is a manifest
        (apiVersion, kind, metadata.name, spec) or a workload as ``get`` answers it; the project is ``project``,
        else the document's (``project`` of a representation, ``spec.project``)."""
        doc, doc_project = normalize_document(document)
        project = project or doc_project
        if not project:
            raise ValueError(f"{doc['kind']} {doc['metadata']['name']}: no project (pass project=... or -p)")
        path = self._one(project, doc["kind"], doc["metadata"]["name"])
        try:  # what it was (a read of the server's cache), to tell "unchanged" from "configured"
            before: Workload | None = Workload.from_dict(self.request("GET", path))
        except NotFound:
            before = None
        params = {"dryRun": "true" if dry_run else None}
        status, answer = self.send("PUT", path, params=params, body=doc, if_match=if_match)
        after = Workload.from_dict(answer)
        unchanged = (
            not dry_run
            and before is not None
            and (before.version, before.labels, before.annotations)
            == (
                after.version,
                after.labels,
                after.annotations,
            )
        )
        return ApplyResult(after, created=status == 201, unchanged=unchanged)

    def preview(self, document: Json, project: str | None = None, *, if_match: str | None = None) -> WorkloadPreview:
        """What applying ``document`` would do, and nothing is written (``apply``'s document and project rules):
        ``action`` created, configured or unchanged, the object the write would make beside the live one, the
        placement, each member cluster's objects, the quota fit and what submitting would refuse. ``if_match``: the
        version an edit started from (``diff.stale`` says when it is not the live one)."""
        doc, doc_project = normalize_document(document)
        project = project or doc_project
        if not project:
            raise ValueError(f"{doc['kind']} {doc['metadata']['name']}: no project (pass project=... or -p)")
        path = f"projects/{_seg(project)}/workloads/preview/"
        answer = self.request("POST", path, body=doc, if_match=if_match, idempotent=True)  # writes nothing
        return WorkloadPreview.from_dict(answer)

    def delete(self, project: str, kind: str, name: str, *, if_match: str | None = None) -> None:
        self.request("DELETE", self._one(project, kind, name), if_match=if_match)

    def operate(
        self,
        operation: str,
        project: str,
        kind: str,
        name: str,
        body: Json | None = None,
        *,
        if_match: str | None = None,
        idempotent: bool = True,
    ) -> Workload:
        path = self._one(project, kind, name) + f"{operation}/"
        answer = self.request("POST", path, body=body or {}, if_match=if_match, idempotent=idempotent)
        return Workload.from_dict(answer)

    def scale(self, project: str, kind: str, name: str, replicas: int, *, if_match: str | None = None) -> Workload:
        return self.operate("scale", project, kind, name, {"replicas": replicas}, if_match=if_match)

    def pause(self, project: str, kind: str, name: str, *, if_match: str | None = None) -> Workload:
        return self.operate("pause", project, kind, name, if_match=if_match)

    def resume(self, project: str, kind: str, name: str, *, if_match: str | None = None) -> Workload:
        return self.operate("resume", project, kind, name, if_match=if_match)

    def stop(self, project: str, kind: str, name: str, *, if_match: str | None = None) -> Workload:
        return self.operate("stop", project, kind, name, if_match=if_match)

    def start(self, project: str, kind: str, name: str, *, if_match: str | None = None) -> Workload:
        return self.operate("start", project, kind, name, if_match=if_match)

    def restart(self, project: str, kind: str, name: str, *, if_match: str | None = None) -> Workload:
        """Restart every pod: not idempotent, so retried only when it certainly was not carried out."""
        return self.operate("restart", project, kind, name, if_match=if_match, idempotent=False)

    def restart_container(
        self, project: str, kind: str, name: str, container: str, *, pod: str | None = None, if_match: str | None = None
    ) -> Workload:
        body = {"container": container, **({"pod": pod} if pod else {})}
        return self.operate("restart-container", project, kind, name, body, if_match=if_match, idempotent=False)

    # --- insights and debugging ---

    def timeline(
        self,
        project: str,
        kind: str | None = None,
        name: str | None = None,
        *,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
        limit: int | None = None,
    ) -> Timeline:
        """The workload's timeline (``kind`` and ``name``), else the project's; newest first."""
        if (kind is None) != (name is None):
            raise ValueError("a workload's timeline needs both kind and name")
        path = self._one(project, kind, name) if kind and name else f"projects/{_seg(project)}/"
        params = {"since": _moment(since), "until": _moment(until), "limit": limit}
        return Timeline.from_dict(self.request("GET", path + "timeline/", params=params))

    def iter_pods(
        self,
        project: str,
        *,
        cluster: str | None = None,
        workload: str | None = None,
        phase: str | None = None,
        label_selector: str | None = None,
        page_size: int | None = None,
        problems: list[str] | None = None,
    ) -> Iterator[Pod]:
        """The project's pods on every member cluster (from the server's watch caches), page by page."""
        path = f"projects/{_seg(project)}/pods/"
        params: dict[str, Any] = {
            "cluster": cluster,
            "workload": workload,
            "phase": phase,
            "labelSelector": label_selector,
            "limit": page_size,
        }
        for page in self._pages(path, params, PodPage.from_dict, problems):
            yield from page.results

    def list_pods(
        self,
        project: str,
        *,
        cluster: str | None = None,
        workload: str | None = None,
        phase: str | None = None,
        label_selector: str | None = None,
    ) -> PodList:
        problems: list[str] = []
        items = self.iter_pods(
            project, cluster=cluster, workload=workload, phase=phase, label_selector=label_selector, problems=problems
        )
        return PodList(list(items), problems)

    def project_names(self) -> list[str]:
        """The names of every project the caller can see (``GET /api/v1/projects/``, page after page)."""
        names: list[str] = []
        params: dict[str, Any] = {}
        while True:
            page = self.request("GET", "projects/", params=params)
            names += [str(p["name"]) for p in page.get("results") or []]
            if not page.get("next"):
                return names
            # the next page's limit and offset, on our own base URL (never the link's host)
            params = {k: v[0] for k, v in parse_qs(urlsplit(page["next"]).query).items()}

    def namespace_of(self, project: str) -> str:
        """The project's namespace on the clusters (``proj-<name>``, as the project API answers it)."""
        return str(self.request("GET", f"projects/{_seg(project)}/")["namespace"])

    def server_version(self) -> ServerVersion:
        return ServerVersion.from_dict(self.request("GET", "version/"))

    @property
    def websocket_base(self) -> str:
        """``ws://host`` (``wss://`` for https) of the portal this client speaks to."""
        scheme, _, rest = self.url.partition("://")
        return f"{'wss' if scheme == 'https' else 'ws'}://{rest}"

    def pod_debug(self, project: str, cluster: str, pod: str) -> PodDebug:
        """The websocket URLs of a pod's shell and log streams."""
        path = f"projects/{_seg(project)}/pods/{_seg(cluster)}/{_seg(pod)}/"
        return PodDebug.from_dict(self.request("GET", path))

    def start_debug_container(
        self, project: str, cluster: str, pod: str, *, container: str | None = None, image: str | None = None
    ) -> DebugContainer:
        """Start a debug container in the pod, beside ``container`` (default: its first own), from ``image`` (default:
        the platform's first allowed); poll ``debug_container`` until its ``state`` is ``running``."""
        path = f"projects/{_seg(project)}/pods/{_seg(cluster)}/{_seg(pod)}/debug/"
        body = {k: v for k, v in (("container", container), ("image", image)) if v}
        return DebugContainer.from_dict(self.request("POST", path, body=body))

    def debug_container(self, project: str, cluster: str, pod: str, name: str) -> DebugContainer:
        path = f"projects/{_seg(project)}/pods/{_seg(cluster)}/{_seg(pod)}/debug/{_seg(name)}/"
        return DebugContainer.from_dict(self.request("GET", path))


def _decode(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text


def _cursor_of(next_url: str | None) -> str | None:
    if not next_url:
        return None
    values = parse_qs(urlsplit(next_url).query).get("cursor")
    return values[0] if values else None


def normalize_document(document: Json) -> tuple[Json, str | None]:
    """A document to PUT (apiVersion, kind, metadata with name, labels and annotations, spec) and the project
    it names, from a manifest or from a workload as ``get`` answers it."""
    if not isinstance(document, dict):
        raise ValueError("a document must be a mapping")
    if "metadata" not in document and "name" in document:  # a representation: -o yaml output applied back
        named: Json = {"name": document["name"]}
        for key in ("labels", "annotations"):
            if document.get(key):
                named[key] = document[key]
        document = {**document, "metadata": named}
    meta = document.get("metadata")
    kind = document.get("kind")
    if not isinstance(meta, dict) or not meta.get("name") or not kind:
        raise ValueError("a document needs kind and metadata.name")
    spec = document.get("spec")
    project = document.get("project") or (spec.get("project") if isinstance(spec, dict) else None)
    out: Json = {
        "apiVersion": document.get("apiVersion") or "pincompute.io/v1",
        "kind": canonical_kind(str(kind)),
        "metadata": {k: meta[k] for k in ("name", "labels", "annotations") if meta.get(k) is not None},
        "spec": spec if spec is not None else {},
    }
    return out, (str(project) if project else None)
