"""``pincompute quota fit`` against the real portal (``live_server``) with a real API token: per tier and member the
largest pod that fits now and what binds it, JSON with the raw units, one tier alone; another tenant's project is not
found (exit 3). The members' nodes and pods are the watch caches, filled."""

from __future__ import annotations

import io
import json

import pytest
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from pincompute.kinds import MEMBER_CLUSTER
from projects.grants import QuotaInput
from projects.quota import change_quota
from tests.support.factories import HOST
from tests.support.fakes import FilledCache
from tests.support.kinds import member


def node(name: str) -> dict:
    return {"metadata": {"name": name}, "spec": {}, "status": {"allocatable": {"cpu": "8", "memory": "32Gi"}}}


def taking(name: str, on: str) -> dict:
    container = {"name": "app", "resources": {"requests": {"cpu": "5", "memory": "1Gi"}}}
    return {"metadata": {"name": name, "namespace": "x"}, "spec": {"nodeName": on, "containers": [container]}}


@pytest.mark.django_db(transaction=True)
def test_quota_fit_prints_the_largest_pod_per_tier_and_member(
    live_server, project, other_project, developer, admin_user, caches, monkeypatch
):
    change_quota(project, "ondemand", QuotaInput(cpu="8", memory="16Gi", pods="20"), actor=admin_user)
    host = caches.setdefault(HOST, FilledCache({}))
    host.put(MEMBER_CLUSTER.plural, member("member-a", "local-1a"))
    caches["member-a"] = FilledCache(
        {"nodes": [node("a0"), node("a1")], "pods": [taking("p0", "a0"), taking("p1", "a1")]}
    )
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)
    monkeypatch.setenv("PINCONSOLE_TOKEN", create_api_token(user=developer, name="dev", days=1)[1])

    def cli(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()

    code, out, err = cli("quota", "fit", "-n", "ads")
    assert (code, err) == (0, ""), err
    assert "ondemand: grant left cpu 8, memory 16Gi, gpu 0\n" in out
    assert "  member-a: cpu 3 (of 64 free in the pool; at most 3 free on one node of member-a), memory 16Gi" in out
    assert "reserved: grant left cpu 0" in out and "more than the Reserved grant has left" in out

    code, out, _ = cli("quota", "fit", "--tier", "ondemand", "-n", "ads", "-o", "json")
    tiers = json.loads(out)["tiers"]
    assert code == 0 and [t["tier"] for t in tiers] == ["ondemand"]
    assert tiers[0]["clusters"][0]["largest"]["cpu_milli"] == 3000

    assert cli("quota", "fit", "-n", "ml")[0] == 3  # another tenant's: not found
    assert cli("quota", "fit", "--tier", "gold", "-n", "ads")[0] == 2  # a usage error
