"""The project pages in a real browser against the real stack: the live server on PostgreSQL, a Celery worker
over Redis running the provisioning tasks, and the local control plane (host + members).

1. The onboarding wizard, step by step with inline errors, ends on the project page, which polls the
   provisioning records until every cluster is ready; the namespace and its quotas are on the members.
2. An owner asks for more than the auto-approve limit, a platform admin approves it in the queue, and
   the new ResourceQuota reaches every member.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from kubernetes import client

from clusters import runtime
from devtools.devstack import install_platform, register_one
from devtools.waiting import wait_for
from projects.models import ClusterProvisioning, Project, QuotaRequest
from tests.support.factories import make_pool
from tests.support.provisioning import subprocess_env

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
]
ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "pw-Secret-123!"


@pytest.fixture
def federation(local_control_plane):
    """The host and every member registered with the platform installed; the members with pools."""
    clusters = []
    for info in local_control_plane.clusters:
        cluster = register_one(local_control_plane, info)
        install_platform(cluster)
        if cluster.role == "member":
            make_pool(cluster, "reserved", 16, 64)
            make_pool(cluster, "ondemand", 16, 64)
        clusters.append(cluster)
    yield clusters
    runtime.shutdown()


@pytest.fixture
def worker(tmp_path):
    """``celery -A console worker`` on the harness's Redis and the test database: the tasks the pages queue
    run as in production, so the project page really watches them progress."""
    assert os.environ.get("REDIS_URL"), "the harness sets REDIS_URL"
    log = tmp_path / "worker.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "celery", "-A", "console", "worker", "--loglevel", "INFO"),
                *("--concurrency", "2", "--without-gossip", "--without-mingle"),
                *("--hostname", f"pages-test-{uuid.uuid4().hex[:6]}@%h"),
            ],
            cwd=ROOT,
            env=subprocess_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    yield log
    proc.send_signal(signal.SIGTERM)  # warm shutdown: finishes what runs
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@pytest.fixture
def sign_in(browser, live_server):
    """``sign_in(user)``: a page of its own browser context, signed in with the dev password form."""
    contexts = []

    def signed_in(user):
        user.set_password(PASSWORD)
        user.save()
        context = browser.new_context(ignore_https_errors=True, viewport={"width": 1360, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{live_server.url}/login/")
        page.fill("input[name=username]", user.get_username())
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")
        return page

    yield signed_in
    for context in contexts:
        context.close()


def settle(page):
    """Before a full-page screenshot: back at the top (sticky header), charts drawn (they animate)."""
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(900)


def core(api):
    return client.CoreV1Api(api)


def test_the_wizard_ends_on_the_project_page_with_every_cluster_provisioned(
    sign_in, live_server, federation, worker, cluster_api_clients, user, other_user, screenshot_dir
):
    name = f"web-{uuid.uuid4().hex[:5]}"
    Group.objects.create(name="web-oncall")
    page = sign_in(user)

    page.goto(f"{live_server.url}/projects/")
    page.click("text=New project")
    page.fill("#wizard input[name=name]", "Web_Shop")
    page.fill("#wizard input[name=team]", "web")
    page.click("#wizard button[value=next]")
    error = page.wait_for_selector("#wizard .invalid-feedback")
    assert "lowercase" in error.inner_text()  # not DNS-safe, beside the field
    assert "Give the cost center." in page.inner_text("#wizard")
    page.screenshot(path=str(screenshot_dir / "projects-wizard-basics-errors.png"))
    page.fill("#wizard input[name=name]", name)
    page.wait_for_selector("#name-check .text-success")
    page.fill("#wizard input[name=display_name]", "Web shop")
    page.fill("#wizard input[name=cost_center]", "CC-4711")
    page.click("#wizard button[value=next]")

    page.wait_for_selector("text=Add a member")
    page.fill("input[name=members-0-name]", "web-on")  # the lookup suggests the group
    page.click("#suggest-0 [data-pick-name=web-oncall]")
    assert page.input_value("select[name=members-0-kind]") == "group"
    page.select_option("select[name=members-0-role]", "developer")
    page.click("#wizard button[value=add]")
    page.fill("input[name=members-1-name]", "nobody-here")
    page.click("#wizard button[value=next]")
    assert "There is no user named 'nobody-here'." in page.wait_for_selector("#wizard .invalid-feedback").inner_text()
    page.fill("input[name=members-1-name]", other_user.username)
    page.select_option("select[name=members-1-role]", "viewer")
    page.click("#wizard button[value=next]")

    page.wait_for_selector("text=Pool headroom now")
    page.fill("input[name=reserved-cpu]", "100")
    page.click("#wizard button[value=next]")
    assert "left in the region's Reserved pools" in page.wait_for_selector("#wizard .invalid-feedback").inner_text()
    page.screenshot(path=str(screenshot_dir / "projects-wizard-quota-errors.png"), full_page=True)
    page.fill("input[name=reserved-cpu]", "4")
    page.fill("input[name=reserved-memory]", "8Gi")
    page.fill("input[name=reserved-pods]", "20")
    page.fill("input[name=ondemand-cpu]", "2")
    page.fill("input[name=ondemand-memory]", "4Gi")
    page.click("#wizard button[value=next]")

    page.wait_for_selector("text=What will be created on every cluster")
    for cluster in federation:
        assert page.locator(f"#tab-{cluster.name}").is_visible()
    member = next(c for c in federation if c.role == "member")
    page.click(f"#tab-{member.name}")
    yaml_text = page.inner_text(f"#manifest-{member.name}")
    assert "kind: ResourceQuota" in yaml_text and "name: web-oncall" in yaml_text
    assert not Project.objects.filter(name=name).exists()  # nothing created before the last step
    page.screenshot(path=str(screenshot_dir / "projects-wizard-review.png"), full_page=True)

    page.click("#wizard button:has-text('Create project')")
    page.wait_for_url(f"{live_server.url}/projects/{name}/")
    rows = page.locator("#provisioning tr[data-cluster]")
    assert rows.count() == len(federation)
    page.wait_for_function(
        "() => [...document.querySelectorAll('#provisioning tr[data-cluster]')]"
        ".every(r => r.dataset.state === 'ready')",
        timeout=90_000,
    )  # the page polls the records while the worker provisions
    assert "every 2s" not in (page.get_attribute("#provisioning", "hx-trigger") or "")  # polling stopped
    settle(page)
    page.screenshot(path=str(screenshot_dir / "projects-detail-provisioned.png"), full_page=True)

    project = Project.objects.get(name=name)
    records = ClusterProvisioning.objects.filter(project=project)
    assert {r.cluster.name: (r.state, r.observed_generation) for r in records} == {
        c.name: ("ready", project.generation) for c in federation
    }
    for cluster in federation:
        if cluster.role != "member":
            continue
        api = cluster_api_clients[cluster.name]
        namespace = core(api).read_namespace(project.namespace)
        assert namespace.metadata.labels["pincompute.io/project"] == name
        hard = core(api).read_namespaced_resource_quota("pincompute-reserved", project.namespace).spec.hard
        assert (hard["requests.cpu"], hard["requests.memory"], hard["pods"]) == ("4", "8Gi", "20")

    page.click("a:has-text('First workload tutorial')")
    page.wait_for_url(f"{live_server.url}/projects/tutorial/?project={name}")
    assert f"namespace: {project.namespace}" in page.inner_text("#first-workload")
    assert f"{len(federation)} of {len(federation)} clusters ready" in page.inner_text(".tutorial")
    page.screenshot(path=str(screenshot_dir / "projects-tutorial.png"), full_page=True)
    page.click(".tutorial a:has-text('Workloads')")
    assert page.inner_text("h1.page-title") == "Workloads"


def test_the_browsers_back_shows_what_was_typed_and_next_keeps_the_draft(
    sign_in, live_server, user, other_user, screenshot_dir
):
    """Back restores a wizard step from the server (htmx keeps no snapshot of it), filled from the draft; sending
    the restored step again keeps everything up to the review."""
    from playwright.sync_api import expect

    name = f"back-{uuid.uuid4().hex[:5]}"
    page = sign_in(user)
    page.goto(f"{live_server.url}/projects/new/")
    page.fill("#wizard input[name=name]", name)
    page.fill("#wizard input[name=team]", "web")
    page.fill("#wizard input[name=cost_center]", "CC-4711")
    page.click("#wizard button[value=next]")
    page.wait_for_url("**/members/")
    page.fill("input[name=members-0-name]", other_user.username)
    page.select_option("select[name=members-0-role]", "viewer")
    page.click("#wizard button[value=next]")
    page.wait_for_url("**/quotas/")
    page.wait_for_selector("input[name=reserved-cpu]")

    page.go_back()
    page.wait_for_url("**/members/")
    expect(page.locator("input[name=members-0-name]")).to_have_value(other_user.username)
    expect(page.locator("select[name=members-0-role]")).to_have_value("viewer")
    settle(page)
    page.screenshot(path=str(screenshot_dir / "projects-wizard-back-members.png"), full_page=True)
    page.go_back()
    page.wait_for_url("**/basics/")
    expect(page.locator("#wizard input[name=name]")).to_have_value(name)
    expect(page.locator("#wizard input[name=cost_center]")).to_have_value("CC-4711")
    settle(page)
    page.screenshot(path=str(screenshot_dir / "projects-wizard-back-basics.png"), full_page=True)

    page.click("#wizard button[value=next]")  # the restored steps, sent again as they are
    page.wait_for_url("**/members/")
    expect(page.locator("input[name=members-0-name]")).to_have_value(other_user.username)
    page.click("#wizard button[value=next]")
    page.wait_for_url("**/quotas/")
    page.click("#wizard button[value=next]")
    page.wait_for_selector("text=What will be created on every cluster")
    review = page.inner_text("#wizard")
    assert name in review and "CC-4711" in review
    assert other_user.username in review and "viewer" in review
    assert not Project.objects.filter(name=name).exists()


def test_an_increase_past_the_limit_is_approved_in_the_queue_and_reaches_the_clusters(
    sign_in, live_server, federation, worker, cluster_api_clients, user, admin_user, screenshot_dir
):
    from projects.grants import QuotaInput
    from projects.onboarding import ProjectDraft, onboard_project

    name = f"ads-{uuid.uuid4().hex[:5]}"
    draft = ProjectDraft(name=name, display_name="Ads ranking", team="ads", cost_center="CC-1042")
    draft.quotas = {"reserved": QuotaInput(cpu="4", memory="8Gi", pods="20")}
    project = onboard_project(draft, actor=user)
    wait_for(
        lambda: ClusterProvisioning.objects.filter(project=project, state="ready").count() == len(federation),
        timeout=90,
        what="the worker to provision the new project everywhere",
    )

    owner = sign_in(user)
    owner.goto(f"{live_server.url}/projects/{name}/")
    form = owner.locator("form.quota-change[data-tier=reserved]")
    form.locator("input[name=reserved-cpu]").fill("14")  # +10: beyond the 8 approved without review
    form.locator("input[name=reserved-reason]").fill("launch of ranker v2")
    form.locator("button[type=submit]").click()
    result = owner.wait_for_selector("[data-quota-result=pending]")
    request = QuotaRequest.objects.get(project=project, state="pending")
    assert f"Request #{request.pk} for Reserved waits for a platform admin" in result.inner_text()
    assert owner.locator(f'tr[data-request="{request.pk}"][data-state=pending]').is_visible()
    settle(owner)
    owner.screenshot(path=str(screenshot_dir / "projects-quota-request-pending.png"), full_page=True)

    admin = sign_in(admin_user)
    assert admin.inner_text("#nav-quota-requests") == "1"
    admin.click("a.nav-link:has-text('Quota requests')")
    row = admin.locator(f"#request-{request.pk}")
    assert "launch of ranker v2" in row.inner_text() and name in row.inner_text()
    admin.screenshot(path=str(screenshot_dir / "projects-quota-queue.png"), full_page=True)
    row.locator("input[name$=reason]").fill("fits this quarter")
    row.locator("button:has-text('Approve')").click()
    admin.wait_for_selector("#queue .alert-success")
    assert admin.inner_text("#nav-quota-requests") == ""  # the count went out of band
    assert admin.locator(f'tr[data-request="{request.pk}"][data-state=applied]').is_visible()

    members = [c for c in federation if c.role == "member"]

    def reserved_cpu_everywhere() -> bool:
        quotas = [
            core(cluster_api_clients[c.name]).read_namespaced_resource_quota("pincompute-reserved", project.namespace)
            for c in members
        ]
        return all(q.spec.hard["requests.cpu"] == "14" for q in quotas)

    wait_for(reserved_cpu_everywhere, timeout=90, what="the approved ResourceQuota on every member")
    owner.reload()
    owner.wait_for_function(
        "() => [...document.querySelectorAll('#provisioning tr[data-cluster]')]"
        ".every(r => r.dataset.state === 'ready')",
        timeout=90_000,
    )
    assert owner.locator(f'tr[data-request="{request.pk}"][data-state=applied]').is_visible()
    assert "fits this quarter" in owner.inner_text("#quota")
    settle(owner)
    owner.screenshot(path=str(screenshot_dir / "projects-quota-approved.png"), full_page=True)
