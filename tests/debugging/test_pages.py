"""Debug pages read the pod from the watch cache and apply the consumers' authorization rules."""

from __future__ import annotations

import pytest

from tests.support.debugging import member
from tests.support.fakes import fake_pod

pytestmark = pytest.mark.django_db

POD = "/debug/member-x/proj-ads/web-1/"


def test_a_developer_gets_log_and_terminal_panels(fake_member, project, user, client):
    member(project, user, "developer")
    client.force_login(user)

    page = client.get(POD)
    shell = client.get(POD + "shell/")

    assert page.status_code == 200
    assert b'data-ws-url="/ws/logs/member-x/proj-ads/web-1/app/"' in page.content
    assert b'hx-get="/debug/member-x/proj-ads/web-1/shell/?container=app"' in page.content
    assert shell.status_code == 200 and b'data-ws-url="/ws/exec/member-x/proj-ads/web-1/app/"' in shell.content


def test_the_container_picker_selects_the_streams(fake_member, project, user, client):
    fake_member.put("pods", fake_pod("web-2", "proj-ads", containers=("app", "proxy")))
    member(project, user, "owner")
    client.force_login(user)

    page = client.get("/debug/member-x/proj-ads/web-2/?container=proxy")

    assert b'<option value="proxy" selected>' in page.content
    assert b'data-ws-url="/ws/logs/member-x/proj-ads/web-2/proxy/"' in page.content
    assert client.get("/debug/member-x/proj-ads/web-2/?container=nope").status_code == 404


def test_a_viewer_sees_logs_but_no_terminal(fake_member, project, user, client):
    member(project, user, "viewer")
    client.force_login(user)

    page = client.get(POD)

    assert page.status_code == 200 and b"data-logstream" in page.content
    assert b"data-terminal" not in page.content and b"/shell/" not in page.content
    assert client.get(POD + "shell/").status_code == 403


def test_another_tenants_pod_is_a_404(fake_member, project, other_project, user, client):
    member(project, user, "owner")
    client.force_login(user)

    theirs = client.get("/debug/member-x/proj-ml/train-1/")
    missing = client.get("/debug/member-x/proj-ml/no-such-pod/")

    assert theirs.status_code == missing.status_code == 404  # same answer as for a pod that does not exist
    assert b"busybox" not in theirs.content and b"data-logstream" not in theirs.content
    assert client.get("/debug/member-x/proj-ads/missing/").status_code == 404
    assert client.get("/debug/member-x/proj-ml/logs/?selector=a=b").status_code == 404


def test_pages_need_a_session(fake_member, project, client):
    response = client.get(POD)

    assert response.status_code == 302 and "/login/" in response["Location"]


def test_workload_log_page_lists_matching_pods_and_streams_the_selector(fake_member, project, user, client):
    fake_member.put("pods", fake_pod("web-2", "proj-ads", labels={"pincompute.io/workload": "web"}))
    fake_member.put("pods", fake_pod("web-3", "proj-ads", phase="Pending", labels={"pincompute.io/workload": "web"}))
    member(project, user, "viewer")
    client.force_login(user)

    page = client.get("/debug/member-x/proj-ads/logs/?selector=pincompute.io/workload=web")

    assert page.status_code == 200
    assert b'data-ws-url="/ws/logs/member-x/proj-ads/?selector=pincompute.io%2Fworkload%3Dweb"' in page.content
    assert b"web-1" in page.content and b"web-2" in page.content and b"web-3" not in page.content
