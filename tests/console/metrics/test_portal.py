"""The portal's /metrics through the test client: who may scrape, and values that move because of real actions
(a request, a submission, a provisioning run, a refused websocket, a Celery task run eagerly)."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings

from accounts.models import READ, ApiToken
from accounts.services import create_api_token, revoke_api_token
from clusters.models import Cluster
from console.asgi import application
from pincompute.errors import NotFound, ServiceError, Unprocessable
from projects.models import Membership, Project
from projects.provisioning import provision_project
from projects.tasks import provision_project_everywhere
from tests.support.metrics import families, label_sets, value
from tests.support.wsclient import WebsocketCommunicator
from workloads import services

TOKEN = "scrape-token-0123456789"


def scrape(client: Client) -> dict:
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content[:300]
    return families(response.content.decode())


@pytest.fixture
def scraper(settings) -> Client:
    settings.METRICS_TOKEN = TOKEN
    return Client()


@pytest.mark.django_db
def test_anonymous_a_developer_and_a_wrong_token_get_a_404_without_data(scraper, user_client):
    anonymous = Client().get("/metrics")
    developer = user_client.get("/metrics")
    wrong = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer not-the-token")

    for refused in (anonymous, developer, wrong):
        assert refused.status_code == 404
        assert refused.json()["error"]["code"] == "not_found"
        assert b"pinconsole_" not in refused.content


@pytest.mark.django_db
def test_a_platform_admin_and_the_token_holder_may_scrape(scraper, admin_client_):
    as_admin = admin_client_.get("/metrics")

    assert as_admin.status_code == 200 and as_admin["Content-Type"].startswith("text/plain")
    assert "pinconsole_http_requests" in families(as_admin.content.decode())
    assert "pinconsole_http_requests" in scrape(scraper)


@pytest.mark.django_db
def test_a_platform_admins_api_token_may_scrape_a_developers_gets_a_404(scraper, admin_user, user):
    admin_token = create_api_token(user=admin_user, name="prometheus", days=1, scope=READ)[1]
    developer_token = create_api_token(user=user, name="curious", days=1)[1]

    as_admin = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {admin_token}")
    as_developer = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {developer_token}")

    assert as_admin.status_code == 200, as_admin.content[:300]
    assert "pinconsole_http_requests" in families(as_admin.content.decode())
    assert as_developer.status_code == 404 and b"pinconsole_" not in as_developer.content
    revoke_api_token(user=admin_user, token_id=ApiToken.objects.get(name="prometheus").pk, actor=admin_user)
    assert Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {admin_token}").status_code == 404


@pytest.mark.django_db
def test_the_standard_process_and_python_families_are_exposed(scraper):
    found = scrape(scraper)

    assert found["process_resident_memory_bytes"].type == "gauge"
    assert value(found, "process_resident_memory_bytes") > 0
    assert found["process_cpu_seconds"].type == "counter" and found["process_open_fds"].type == "gauge"
    assert found["python_gc_objects_collected"].type == "counter"
    assert label_sets(found, "python_gc_collections") == {("generation",)}
    assert {s.labels["implementation"] for s in found["python_info"].samples} == {"CPython"}


@pytest.mark.django_db
def test_a_scraper_on_the_pods_address_in_plain_http_is_answered_not_redirected(scraper, settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.ALLOWED_HOSTS = ["portal.example.com", "10.1.2.3"]  # the chart adds the pod's IP (web.yaml)

    scraped = Client().get("/metrics", HTTP_HOST="10.1.2.3:8000", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    page = Client().get("/healthz", HTTP_HOST="portal.example.com")

    assert scraped.status_code == 200
    assert page.status_code == 301 and page["Location"].startswith("https://")  # everything else still redirected


@override_settings(METRICS_TOKEN="")
@pytest.mark.django_db
def test_no_token_configured_means_no_token_scrape():
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404


@pytest.mark.django_db
def test_requests_are_counted_by_route_name_method_and_status_class_never_by_path(scraper, user_client):
    before = scrape(scraper)

    user_client.get("/healthz")
    user_client.get("/projects/no-such-project-here/")
    Client().get("/no/such/path/at/all/")

    after = scrape(scraper)
    assert after["pinconsole_http_requests"].type == "counter"
    assert after["pinconsole_http_request_duration_seconds"].type == "histogram"
    assert label_sets(after, "pinconsole_http_requests") == {("method", "status", "view")}

    def delta(**labels: str) -> float:
        name = "pinconsole_http_requests_total"
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta(view="healthz", method="GET", status="2xx") == 1
    assert delta(view="projects:detail", method="GET", status="4xx") == 1
    assert delta(view="unmatched", method="GET", status="4xx") == 1
    count = "pinconsole_http_request_duration_seconds_count"
    assert value(after, count, view="healthz", method="GET") - value(before, count, view="healthz", method="GET") == 1
    paths = {s.labels.get("view", "") for s in after["pinconsole_http_requests"].samples}
    assert not any("/" in view for view in paths), paths


@pytest.mark.django_db
def test_submission_outcomes_are_the_refusals_codes(scraper, user, other_user):
    project = Project.objects.create(name="ads", team="ads", cost_center="CC-1")
    Membership.objects.create(project=project, user=user, role="owner")
    before = scrape(scraper)

    with pytest.raises(NotFound):
        services.submit_workload(project, {"kind": "PinPod", "metadata": {"name": "x"}}, actor=other_user)
    with pytest.raises(ServiceError) as invalid:
        services.submit_workload(project, {"kind": "NoSuchKind", "metadata": {"name": "x"}}, actor=user)

    after = scrape(scraper)
    name = "pinconsole_workload_submissions_total"
    assert after["pinconsole_workload_submissions"].type == "counter"
    for outcome in ("not_found", invalid.value.code):
        assert value(after, name, outcome=outcome) - value(before, name, outcome=outcome) == 1


@pytest.mark.django_db
def test_a_provisioning_run_is_counted_and_timed_with_its_outcome(scraper, tmp_path):
    project = Project.objects.create(name="ads", team="ads", cost_center="CC-1")
    cluster = Cluster.objects.create(
        name="member-z", region="r", zone="r-a", api_server="https://127.0.0.1:1", kubeconfig_path=str(tmp_path / "no")
    )
    before = scrape(scraper)

    with pytest.raises(Unprocessable):
        provision_project(project, cluster)

    after = scrape(scraper)
    runs = "pinconsole_provisioning_runs_total"
    assert (
        value(after, runs, action="apply", outcome="unprocessable")
        - value(before, runs, action="apply", outcome="unprocessable")
        == 1
    )
    seconds = "pinconsole_provisioning_duration_seconds_count"
    assert value(after, seconds, action="apply") - value(before, seconds, action="apply") == 1


@pytest.mark.django_db
def test_a_celery_task_run_is_counted_by_name_and_outcome_and_timed(scraper):
    before = scrape(scraper)

    result = provision_project_everywhere.apply(args=(0,))  # eagerly, in this process: no such project

    after = scrape(scraper)
    assert result.get() == []
    labels = {"task": "projects.provision_project_everywhere"}
    runs = "pinconsole_celery_tasks_total"
    assert value(after, runs, **labels, outcome="success") - value(before, runs, **labels, outcome="success") == 1
    durations = "pinconsole_celery_task_duration_seconds_count"
    assert value(after, durations, **labels) - value(before, durations, **labels) == 1
    assert after["pinconsole_celery_task_duration_seconds"].type == "histogram"


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_refused_websockets_are_counted_by_reason(scraper):
    from asgiref.sync import sync_to_async

    before = await sync_to_async(scrape)(scraper)

    for path in ("/ws/exec/member-x/proj-ads/web-1/app/", "/ws/no-such-endpoint/"):
        comm = WebsocketCommunicator(
            application, path, headers=[(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")]
        )
        assert (await comm.connect())[0]
        await comm.receive_json_from(timeout=5)
        closed = await comm.receive_output(timeout=5)
        assert closed["type"] == "websocket.close"
        await comm.wait()

    after = await sync_to_async(scrape)(scraper)
    name = "pinconsole_websocket_refusals_total"
    assert after["pinconsole_websocket_refusals"].type == "counter"
    for reason in ("not_authenticated", "not_found"):
        assert value(after, name, reason=reason) - value(before, name, reason=reason) == 1, reason


@pytest.mark.django_db
def test_gc_collections_and_the_time_they_stopped_the_process_are_on_metrics(scraper):
    import gc

    from base import gcpauses

    gcpauses.install()  # console.asgi (imported above, as a served process imports it) already did: still once
    assert gc.callbacks.count(gcpauses._timed) == 1
    before = scrape(scraper)
    full_before = value(before, "pinconsole_gc_collections_total", generation="2")
    seconds_before = value(before, "pinconsole_gc_pause_seconds_total", generation="2")
    kept = [[i] for i in range(50_000)]  # something for the collection to walk
    gc.collect()
    found = scrape(scraper)
    assert value(found, "pinconsole_gc_collections_total", generation="2") >= full_before + 1
    assert value(found, "pinconsole_gc_pause_seconds_total", generation="2") > seconds_before
    assert value(found, "pinconsole_gc_pause_longest_seconds", generation="2") > 0
    assert label_sets(found, "pinconsole_gc_collections") == {("generation",)}
    del kept
