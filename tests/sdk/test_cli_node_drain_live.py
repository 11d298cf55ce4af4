# ruff: noqa: F811 - fixtures imported from other modules are named as parameters
"""``pincompute drain node/CLUSTER/NODE`` against the real portal and a real member apiserver: it prints each pod
evicted and each one a disruption budget kept, with the apiserver's reason, and exits 1 until all are out."""

from __future__ import annotations

import io
from typing import Any

import pytest
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from tests.support.node_drain import member, node_with_pods  # noqa: F401
from tests.support.provisioning import register  # noqa: F401

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.django_db(transaction=True)]


def test_the_cli_drains_a_node_and_says_which_pod_a_budget_kept(
    member: Any, node_with_pods: tuple[str, str], live_server: Any, admin_user: Any, monkeypatch: Any
) -> None:
    node, ns = node_with_pods
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)
    monkeypatch.setenv("PINCONSOLE_TOKEN", create_api_token(user=admin_user, name="ops", days=1)[1])
    out, err = io.StringIO(), io.StringIO()

    code = main(["drain", f"node/{member.name}/{node}"], out=out, err=err)

    printed = out.getvalue().splitlines()
    assert code == 1, err.getvalue()  # not all evicted: drain again once the budget allows
    assert f"pod/{ns}/free evicted" in printed
    assert any(line.startswith(f"pod/{ns}/guarded not evicted: Cannot evict pod") for line in printed), printed
    assert printed[-1] == f"node/{member.name}/{node} cordoned; drain again to retry"
