"""``pincompute cordon|drain|uncordon`` against the real portal (``live_server``) with real API tokens: a platform
admin's commands are audited, a developer's are refused (403, exit code 1), a node of an unknown cluster is a 404."""

from __future__ import annotations

import io

import pytest
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from base.models import AuditEvent
from tests.support.factories import make_cluster


@pytest.mark.django_db(transaction=True)
def test_the_cli_cordons_drains_and_uncordons_and_a_developer_gets_403(live_server, admin_user, user, monkeypatch):
    cluster = make_cluster()
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)

    def cli(token: str, *argv: str) -> tuple[int, str, str]:
        monkeypatch.setenv("PINCONSOLE_TOKEN", token)
        out, err = io.StringIO(), io.StringIO()
        return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()

    admin = create_api_token(user=admin_user, name="ops", days=1)[1]
    developer = create_api_token(user=user, name="dev", days=1)[1]
    code, _, err = cli(developer, "cordon", f"cluster/{cluster.name}")
    assert code == 1 and "permission_denied" in err and "platform admins" in err
    assert cli(admin, "cordon", f"cluster/{cluster.name}") == (0, f"cluster/{cluster.name} cordoned\n", "")
    code, out, _ = cli(admin, "drain", f"cluster/{cluster.name}", "--jobs-deadline", "30", "--wait")
    assert code == 0 and out.endswith(f"cluster/{cluster.name} drained\n")
    assert cli(admin, "uncordon", f"cluster/{cluster.name}")[0] == 0
    code, _, err = cli(admin, "drain", "node/no-such-cluster/n1")  # a node's drain: tests/clusters/test_node_drain_live
    assert code == 3 and "not_found" in err
    actions = list(AuditEvent.objects.filter(cluster=cluster.name).values_list("action", flat=True).order_by("pk"))
    assert actions == ["cluster.cordon", "cluster.drain", "cluster.uncordon"]


def test_the_drain_progress_line_counts_the_finished_jobs_kept_there():
    from pinconsole_sdk.cli_clusters import _progress

    kept = {"done": True, "placed": [], "moving": [], "finished": ["PinterestJobSet/t/once"]}
    assert _progress(kept) == "nothing placed there any more; 1 finished job(s) kept there as records"
    busy = {"done": False, "placed": ["PinApp/t/web"], "moving": [], "finished": []}
    assert _progress(busy) == "1 workload(s) still placed there, 0 moving off"
