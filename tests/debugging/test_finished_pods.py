"""A pod that has finished (a job's Succeeded or Failed pod) offers its logs, not a shell: the pod page shows the
log tab and says why there is no shell, the shell panel and the exec websocket refuse with that reason (409 /
4409), and its logs still stream."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from tests.support.debugging import member, refused_with, ws_headers
from tests.support.fakes import fake_pod

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(fake_member, request):
    phase = request.param
    fake_member.put("pods", fake_pod("job-1", "proj-ads", phase=phase, labels={"pincompute.io/workload": "job"}))
    return phase


@pytest.mark.parametrize("finished", ["Succeeded", "Failed"], indirect=True)
def test_the_pod_page_offers_logs_not_a_shell(finished, project, user, client):
    member(project, user, "developer")
    client.force_login(user)

    page = client.get("/debug/member-x/proj-ads/job-1/").content.decode()
    shell = client.get("/debug/member-x/proj-ads/job-1/shell/")
    running = client.get("/debug/member-x/proj-ads/web-1/").content.decode()

    assert "data-logstream" in page and 'data-bs-target="#tab-shell"' not in page
    assert f"job-1 has finished ({finished})" in page and "no shell to open" in page
    assert shell.status_code == 409
    assert 'data-bs-target="#tab-shell"' in running  # a running pod still has its shell


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
@pytest.mark.parametrize("finished", ["Succeeded"], indirect=True)
async def test_the_exec_websocket_refuses_a_finished_pod(finished, project, user):
    await database_sync_to_async(member)(project, user, "developer")

    status, code = await refused_with(
        "/ws/exec/member-x/proj-ads/job-1/app/", await database_sync_to_async(ws_headers)(user)
    )

    assert code == 4409 and "has finished (Succeeded)" in status["message"]
