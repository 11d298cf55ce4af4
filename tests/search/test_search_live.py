# ruff: noqa: F811 - fixtures imported from tests.support are named as parameters
"""Search against the real stack: pods running on member-a (a real kube-apiserver with kwok) are found by part of
their name through ``pincompute search`` and the API as their project's developer, never as another tenant; a
platform admin finds them too, and the member's nodes."""

from __future__ import annotations

# isort: off
import tests.support.sdk  # noqa: F401 - first: the SDK's own directory on sys.path, for pinconsole_sdk
# isort: on

import io

import pytest
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from projects.models import Project
from tests.support.debugging import live_pods, member, project  # noqa: F401 - fixtures, used by name

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db(transaction=True)]


def test_a_pod_is_found_by_part_of_its_name_by_its_developer_and_not_by_another_tenant(
    live_server, live_pods, project, user, other_user, admin_user, monkeypatch, capsys
):
    member(project, user, "developer")
    member(Project.objects.create(name="ml", team="ml", cost_center="CC-2"), other_user, "owner")
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)
    workload = live_pods["workload"]
    part = workload.split("-", 1)[1]  # the random middle of web-<hex>-<i>: a word of the name

    tokens = {who.pk: create_api_token(user=who, name="search", days=1)[1] for who in (user, other_user, admin_user)}

    def search(who, *argv: str) -> tuple[int, str]:
        monkeypatch.setenv("PINCONSOLE_TOKEN", tokens[who.pk])
        out = io.StringIO()
        return main(["search", *argv], out=out, err=io.StringIO()), out.getvalue()

    code, out = search(user, part, "-o", "name")
    assert code == 0 and out.splitlines() == [f"pod/{name}" for name in live_pods["names"]]
    code, table = search(user, part)
    assert f"pod of {workload} on member-a in ads, Running" in table

    capsys.readouterr()
    assert search(other_user, part) == (0, "")
    assert "Nothing you can see matches" in capsys.readouterr().err

    code, out = search(admin_user, part, "-o", "name")
    assert [f"pod/{name}" for name in live_pods["names"]] == out.splitlines()
    code, out = search(admin_user, "kwok", "-o", "name", "--limit", "100")
    assert code == 0 and any(line.startswith("node/") for line in out.splitlines())
