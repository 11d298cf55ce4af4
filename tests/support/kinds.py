"""Fixtures of the catalog kind pages and the preview: a project with grants (the projects app's fixtures), and the
host's cache holding two reachable MemberCluster objects in zones local-1a and local-1b (never an apiserver)."""

from __future__ import annotations

from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any

import pytest

from base.errors import Conflict, NotFound
from pincompute.federation.members import MemberSpec, NodeSummary, member_cluster_manifest, member_status
from pincompute.kinds import MEMBER_CLUSTER
from pincompute.quantity import Resources
from projects.grants import QuotaInput
from projects.quota import change_quota
from tests.support.factories import HOST, make_cluster
from tests.support.fakes import FilledCache
from tests.support.projects import (  # noqa: F401  (fixtures used by the modules that import these)
    caches,
    developer,
    fast_passwords,
    other_project,
    owner,
    project,
    region,
    viewer,
)

GI = 2**30


def member(name: str, zone: str, *, reachable: bool = True, cpu: int = 64, nodes: int = 10) -> dict[str, Any]:
    """A MemberCluster object as the host holds it: spec from the registry, status from member health."""
    pools = {"reserved": Resources(cpu * 1000, 256 * GI), "ondemand": Resources(cpu * 1000, 256 * GI)}
    obj = member_cluster_manifest(MemberSpec(name, "local", zone, pools=pools))
    largest = Resources(16_000, 64 * GI)
    obj["status"] = member_status(
        reachable=reachable,
        since=datetime(2026, 1, 1, tzinfo=UTC),
        message="ok" if reachable else "unreachable",
        nodes=NodeSummary(nodes, largest, largest * nodes),
        generation=1,
    )
    return obj


@pytest.fixture
def granted(request, admin_user):
    """``ads`` granted OnDemand 8 cpu / 16Gi / 20 pods and Reserved 4 cpu / 8Gi / 10 pods."""
    ads = request.getfixturevalue("project")
    change_quota(ads, "ondemand", QuotaInput(cpu="8", memory="16Gi", pods="20"), actor=admin_user)
    change_quota(ads, "reserved", QuotaInput(cpu="4", memory="8Gi", pods="10"), actor=admin_user)
    return ads


@pytest.fixture
def members(request) -> FilledCache:
    """Two reachable members on the host: member-a (local-1a) and member-b (local-1b)."""
    found: dict[str, FilledCache] = request.getfixturevalue("caches")
    host = found.setdefault(HOST, FilledCache({}))
    for obj in (member("member-a", "local-1a"), member("member-b", "local-1b")):
        host.put(MEMBER_CLUSTER.plural, obj)
    return host


class _Fields(HTMLParser):
    """The name/value pairs a browser would post from a page's form controls (checked boxes only)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.data: dict[str, str] = {}
        self._textarea: str | None = None
        self._select: str | None = None
        self._first_option: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "button"):
            if a.get("type") == "checkbox":
                if "checked" in a:
                    self.data[name] = a.get("value") or "on"
            else:
                self.data[name] = a.get("value", "")
        elif tag == "textarea" and name:
            self._textarea, self.data[name] = name, ""
        elif tag == "select" and name:
            self._select, self._first_option = name, None
        elif tag == "option" and self._select:
            if self._first_option is None:
                self._first_option = a.get("value", "")
                self.data.setdefault(self._select, self._first_option)
            if "selected" in a:
                self.data[self._select] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.data[self._textarea] += data


def posted(html: str, **changes: str) -> dict[str, str]:
    """What the editor on ``html`` posts, with ``changes`` (field name: value; ``~`` in names as ``__``)."""
    parser = _Fields()
    parser.feed(html)
    data = parser.data
    for textarea in ("document",):  # Django renders a newline after <textarea>; browsers drop it
        if textarea in data:
            data[textarea] = data[textarea].removeprefix("\n")
    data.pop("csrfmiddlewaretoken", None)
    data.update({k.replace("__", "~"): v for k, v in changes.items()})
    return data


@pytest.fixture
def host(monkeypatch, granted):
    """The host's writes, recorded (no apiserver): ``created`` holds what was written."""
    make_cluster("host", role="host")
    written: dict[str, dict] = {}

    def get(kind, namespace, name):
        if (kind, name) in written:
            return written[(kind, name)]
        raise NotFound("No such workload.")

    def create(manifest):
        key = (manifest["kind"], manifest["metadata"]["name"])
        if key in written:  # as the apiserver: AlreadyExists
            raise Conflict(f"{key[0]} {key[1]} already exists")
        written[key] = {**manifest, "metadata": {**manifest["metadata"], "resourceVersion": "1", "generation": 1}}
        return written[key]

    monkeypatch.setattr("workloads.host.get", get)
    monkeypatch.setattr("workloads.host.create", create)
    return written
