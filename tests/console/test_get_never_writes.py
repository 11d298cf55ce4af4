"""A GET never writes: every page (full and htmx partial) and every read API runs without INSERT, UPDATE
or DELETE. Health, usage and the like are written by background work, never by the page that shows them.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import URLPattern, URLResolver, get_resolver

from base import audit
from projects.members import MemberInput, set_member
from projects.models import ClusterProvisioning, QuotaRequest
from tests.support import fake_configs
from tests.support.factories import make_cluster, make_pool, make_quota, workload_cr
from tests.support.fakes import FilledCache, fake_pod

pytestmark = pytest.mark.django_db

WRITES = ("insert", "update", "delete", "replace", "merge")
NOT_PAGES = ("admin", "oidc", "api-schema", "api-docs", "api-redoc")  # third-party views


@pytest.fixture
def world(admin_user, monkeypatch):
    """One of everything a page can show: a project, a member cluster with pools and quota, an audit row."""
    cluster = make_cluster("member-x", kubeconfig_path="/nonexistent/kubeconfig")
    make_pool(cluster, "reserved", 10)
    quota = make_quota("reserved", 4, project="ads")
    set_member(quota.project, MemberInput("user", admin_user.username, "owner"), actor=admin_user)
    event = audit.record("x.y", actor=admin_user, target_kind="Thing", target_name="t")
    asked = QuotaRequest.objects.create(
        project=quota.project, tier="reserved", previous={"cpu_milli": 4000}, requested={"cpu_milli": 64000}
    )
    ClusterProvisioning.objects.create(project=quota.project, cluster=cluster, state="failed", last_error="down")
    cache = FilledCache({"pods": [fake_pod("web-1", "proj-ads", labels={"app": "web"})]})
    monkeypatch.setattr("clusters.runtime.member_caches", lambda: {"member-x": cache})
    host = FilledCache({"pinapps": [workload_cr("web", clusters=("member-x",))]})
    monkeypatch.setattr("clusters.runtime.host_cache", lambda: host)
    fake_configs.install(monkeypatch)
    return {"event": event.pk, "request": asked.pk}


def page_urls() -> dict[str, list[str]]:
    """Every named URL with the GETs to try; ``{event}`` is filled in from the fixture."""
    return {
        "dashboard": ["/"],
        "dashboard-attention": ["/dashboard/attention/"],
        "login": ["/login/"],
        "logout": ["/logout/"],
        "healthz": ["/healthz"],
        "readyz": ["/readyz"],
        "favicon": ["/favicon.ico"],
        "audit:list": ["/audit/", "/audit/?action=x"],
        "audit:detail": ["/audit/{event}/"],
        "tokens:list": ["/tokens/"],
        "tokens:revoke": ["/tokens/1/revoke/"],
        "notifications:list": ["/notifications/", "/notifications/?unread=1&event=quota.decided&project=ads"],
        "notifications:read": ["/notifications/1/read/"],
        "notifications:read-all": ["/notifications/read-all/"],
        "notifications:preferences": ["/notifications/preferences/"],
        "tools:page": ["/tools/"],
        "projects:list": ["/projects/"],
        "projects:detail": ["/projects/ads/"],
        "projects:tutorial": ["/projects/tutorial/", "/projects/tutorial/?project=ads"],
        "projects:wizard": ["/projects/new/"],
        "projects:lookup": ["/projects/new/lookup/?q=o", "/projects/new/lookup/?add-name=ad&row=add-"],
        "projects:name-check": ["/projects/new/name-check/?name=fresh", "/projects/new/name-check/?name=ads"],
        "projects:wizard-step": ["/projects/new/0a1b2c/basics/", "/projects/new/0a1b2c/review/"],
        "projects:wizard-create": ["/projects/new/0a1b2c/create/"],
        "projects:requests": ["/projects/requests/"],
        "projects:request-decide": ["/projects/requests/{request}/approve/"],
        "projects:basics": ["/projects/ads/basics/", "/projects/ads/basics/?edit=1"],
        "projects:pod-security": ["/projects/ads/pod-security/"],
        "projects:members": ["/projects/ads/members/"],
        "projects:access": ["/projects/ads/access/"],
        "projects:quota": ["/projects/ads/quota/"],
        "projects:network": ["/projects/ads/network/"],
        "projects:ownership": ["/projects/ads/ownership/", "/projects/ads/ownership/?edit=1"],
        "projects:policy": ["/projects/ads/policy/"],
        "projects:policy-defaults": ["/projects/policy-defaults/"],
        "projects:force-decrease": ["/projects/ads/quota/force/", "/projects/ads/quota/force/?tier=ondemand"],
        "projects:provisioning": ["/projects/ads/provisioning/", "/projects/ads/provisioning/?watch=3"],
        "projects:retry": ["/projects/ads/provisioning/member-x/retry/"],
        "robots:section": ["/projects/ads/robots/"],
        "robots:revoke": ["/projects/ads/robots/ci/revoke/"],
        "robots:rotate": ["/projects/ads/robots/ci/rotate/"],
        "webhooks:page": ["/projects/ads/webhooks/"],
        "webhooks:detail": ["/projects/ads/webhooks/team/"],
        "webhooks:test": ["/projects/ads/webhooks/team/test/"],
        "webhooks:delete": ["/projects/ads/webhooks/team/delete/"],
        "configs:list": ["/projects/ads/secrets/", "/projects/ads/configmaps/"],
        "configs:edit": ["/projects/ads/secrets/db/", "/projects/ads/configmaps/settings/"],
        "configs:delete": ["/projects/ads/secrets/db/delete/"],
        "projects:archive": ["/projects/ads/archive/"],
        "projects:shell-recording": ["/projects/ads/shell-recording/"],
        "clusters:list": ["/clusters/"],
        "clusters:detail": ["/clusters/member-x/"],
        "clusters:attributes": ["/clusters/member-x/attributes/", "/clusters/member-x/attributes/?edit=1"],
        "clusters:pool": ["/clusters/member-x/pools/reserved/", "/clusters/member-x/pools/reserved/?edit=1"],
        "clusters:probe": ["/clusters/member-x/probe/"],
        "clusters:maintenance": ["/clusters/member-x/maintenance/"],
        "clusters:node": ["/clusters/member-x/nodes/n1/cordon/"],
        "workloads:list": ["/workloads/"],
        "workloads:catalog": ["/workloads/catalog/"],
        "workloads:kind": ["/workloads/catalog/pinapps/", "/workloads/catalog/pinterestdaemons/?project=ads"],
        "workloads:kind-sync": ["/workloads/catalog/pinapps/sync/"],
        "workloads:kind-preview": ["/workloads/catalog/pinapps/preview/"],
        "workloads:kind-create": ["/workloads/catalog/pinapps/create/"],
        "workloads:detail": ["/workloads/ads/PinApp/web/", "/workloads/ads/PinApp/absent/"],
        "workloads:detail-status": ["/workloads/ads/PinApp/web/status/"],
        "workloads:timeline": ["/workloads/ads/PinApp/web/timeline/"],
        "workloads:deleted-list": ["/workloads/ads/deleted/"],
        "workloads:deleted-detail": [
            "/workloads/ads/deleted/PinApp/web/",
            "/workloads/ads/deleted/PinApp/web/?since=x",
        ],
        "workloads:revisions": ["/workloads/ads/PinApp/web/revisions/?a=x&b=y"],
        "workloads:rollback": ["/workloads/ads/PinApp/web/rollback/?revision=1", "/workloads/ads/PinApp/web/rollback/"],
        "workloads:spec": ["/workloads/ads/PinApp/web/spec/", "/workloads/ads/PinApp/web/spec/?edit=1"],
        "workloads:spec-preview": ["/workloads/ads/PinApp/web/spec/preview/"],
        "workloads:operate": ["/workloads/ads/PinApp/web/operate/pause/"],
        "workloads:delete": ["/workloads/ads/PinApp/web/delete/"],
        "debugging:logs": ["/debug/member-x/proj-ads/logs/?selector=app=web"],
        "debugging:pod": ["/debug/member-x/proj-ads/web-1/"],
        "debugging:shell": ["/debug/member-x/proj-ads/web-1/shell/"],
        "debugging:debug": ["/debug/member-x/proj-ads/web-1/debug/"],
        "debugging:debug-container": ["/debug/member-x/proj-ads/web-1/debug/debugger-abcde/"],
        "debugging:sessions": ["/debug/sessions/ads/"],
        "debugging:recording": ["/debug/recordings/1/"],
        "debugging:recording-cast": ["/debug/recordings/1.cast"],
        "debugging:workload-logs": ["/debug/workload/proj-ads/web/logs/"],
        "debugging:workload-archive": ["/debug/workload/proj-ads/web/archive/"],
        "debugging:workload-archive-download": ["/debug/workload/proj-ads/web/archive/download/"],
        "debugging:workload-last-lines": ["/debug/workload/proj-ads/web/archive/last/?failed=1"],
        "search:page": ["/search/", "/search/?q=web"],
        "search:suggest": ["/search/suggest/?q=web"],
        "api:search": ["/api/v1/search/?q=web"],
        "api:root": ["/api/v1/"],
        "api:me": ["/api/v1/me/"],
        "api:version": ["/api/v1/version/"],
        "api:audit-list": ["/api/v1/audit/"],
        "api:audit-detail": ["/api/v1/audit/{event}/"],
        "api:token-list": ["/api/v1/tokens/"],
        "api:token-detail": ["/api/v1/tokens/1/"],
        "api:notification-list": ["/api/v1/notifications/", "/api/v1/notifications/?unread=true"],
        "api:notification-read": ["/api/v1/notifications/1/read/"],
        "api:notification-read-all": ["/api/v1/notifications/read-all/"],
        "api:notification-preferences": ["/api/v1/notifications/preferences/"],
        "api:cluster-list": ["/api/v1/clusters/"],
        "api:cluster-detail": ["/api/v1/clusters/member-x/"],
        "api:cluster-pool": ["/api/v1/clusters/member-x/pools/reserved/"],
        "api:cluster-cordon": ["/api/v1/clusters/member-x/cordon/"],
        "api:cluster-drain": ["/api/v1/clusters/member-x/drain/"],
        "api:cluster-uncordon": ["/api/v1/clusters/member-x/uncordon/"],
        "api:cluster-maintenance": ["/api/v1/clusters/member-x/maintenance/"],
        "api:cluster-node": ["/api/v1/clusters/member-x/nodes/cordon/"],
        "api:project-list": ["/api/v1/projects/"],
        "api:project-pods": ["/api/v1/projects/ads/pods/"],
        "api:project-secrets": ["/api/v1/projects/ads/secrets/"],
        "api:project-secret": ["/api/v1/projects/ads/secrets/db/"],
        "api:project-configmaps": ["/api/v1/projects/ads/configmaps/"],
        "api:project-configmap": ["/api/v1/projects/ads/configmaps/settings/"],
        "api:project-detail": ["/api/v1/projects/ads/"],
        "api:project-archive": ["/api/v1/projects/ads/archive/"],
        "api:project-members": ["/api/v1/projects/ads/members/"],
        "api:project-member": ["/api/v1/projects/ads/members/user/ops/"],
        "api:project-access-requests": [
            "/api/v1/projects/ads/access-requests/",
            "/api/v1/projects/ads/access-requests/?state=pending",
        ],
        "api:project-access-request-approve": ["/api/v1/projects/ads/access-requests/1/approve/"],
        "api:project-access-request-deny": ["/api/v1/projects/ads/access-requests/1/deny/"],
        "api:project-access-grants": ["/api/v1/projects/ads/access-grants/"],
        "api:project-access-grant": ["/api/v1/projects/ads/access-grants/1/"],
        "api:project-quota": ["/api/v1/projects/ads/quota/"],
        "api:project-quota-fit": ["/api/v1/projects/ads/quota/fit/"],
        "api:project-network": ["/api/v1/projects/ads/network/"],
        "api:project-ownership": ["/api/v1/projects/ads/ownership/"],
        "api:project-policy": ["/api/v1/projects/ads/policy/"],
        "api:policy-defaults": ["/api/v1/policy-defaults/"],
        "api:project-quota-tier": ["/api/v1/projects/ads/quota/reserved/"],
        "api:project-forced-decrease-preview": ["/api/v1/projects/ads/quota/reserved/forced-decrease/preview/"],
        "api:project-forced-decrease": ["/api/v1/projects/ads/quota/reserved/forced-decrease/"],
        "api:quota-request-list": ["/api/v1/quota-requests/"],
        "api:quota-request-detail": ["/api/v1/quota-requests/1/"],
        "api:quota-request-approve": ["/api/v1/quota-requests/1/approve/"],
        "api:quota-request-reject": ["/api/v1/quota-requests/1/reject/"],
        "api:workload-list": ["/api/v1/workloads/", "/api/v1/workloads/?status=running&cluster=member-x&limit=1"],
        "api:project-workloads": ["/api/v1/projects/ads/workloads/"],
        "api:project-timeline": ["/api/v1/projects/ads/timeline/?since=2026-01-01T00:00:00Z"],
        "api:workload-detail": [
            "/api/v1/projects/ads/workloads/PinApp/web/",
            "/api/v1/projects/ads/workloads/pinapps/absent/",
        ],
        "api:workload-timeline": ["/api/v1/projects/ads/workloads/PinApp/web/timeline/"],
        "api:workloads-deleted": ["/api/v1/projects/ads/workloads/deleted/"],
        "api:workload-deleted": ["/api/v1/projects/ads/workloads/deleted/pinapps/web/?category=scale"],
        "api:workload-preview": ["/api/v1/projects/ads/workloads/preview/"],
        "api:workload-diagnosis": ["/api/v1/projects/ads/workloads/PinApp/web/diagnosis/"],
        "api:workload-rollback": ["/api/v1/projects/ads/workloads/PinApp/web/rollback/"],
        "api:workload-pause": ["/api/v1/projects/ads/workloads/PinApp/web/pause/"],
        "api:workload-resume": ["/api/v1/projects/ads/workloads/PinApp/web/resume/"],
        "api:workload-stop": ["/api/v1/projects/ads/workloads/PinApp/web/stop/"],
        "api:workload-start": ["/api/v1/projects/ads/workloads/PinApp/web/start/"],
        "api:workload-restart": ["/api/v1/projects/ads/workloads/PinApp/web/restart/"],
        "api:workload-restart-container": ["/api/v1/projects/ads/workloads/PinApp/web/restart-container/"],
        "api:workload-scale": ["/api/v1/projects/ads/workloads/PinApp/web/scale/"],
        "api:pod-debug": ["/api/v1/projects/ads/pods/member-x/web-1/"],
        "api:pod-debug-start": ["/api/v1/projects/ads/pods/member-x/web-1/debug/"],
        "api:pod-debug-container": ["/api/v1/projects/ads/pods/member-x/web-1/debug/debugger-abcde/"],
        "api:project-robots": ["/api/v1/projects/ads/robots/"],
        "api:project-robot": ["/api/v1/projects/ads/robots/ci/"],
        "api:project-robot-rotate": ["/api/v1/projects/ads/robots/ci/rotate/"],
        "api:project-webhooks": ["/api/v1/projects/ads/webhooks/"],
        "api:project-webhook": ["/api/v1/projects/ads/webhooks/team/"],
        "api:project-webhook-routes": ["/api/v1/projects/ads/webhooks/team/routes/"],
        "api:project-webhook-deliveries": ["/api/v1/projects/ads/webhooks/team/deliveries/"],
        "api:project-webhook-test": ["/api/v1/projects/ads/webhooks/team/test/"],
        "api:project-logs-archive": ["/api/v1/projects/ads/logs/archive/?pod=web-1&q=error"],
        "metrics": ["/metrics"],
        "usage:report": ["/usage/", "/usage/?aggregate=team&window=7d"],
        "usage:report-csv": ["/usage/cost.csv"],
        "usage:prices": ["/usage/prices/"],
        "usage:project": ["/usage/projects/ads/", "/usage/projects/ads/?window=30d&step=1d"],
        "usage:project-csv": ["/usage/projects/ads/cost.csv"],
        "usage:cluster-capacity": ["/usage/clusters/member-x/capacity/"],
        "api:cost-report": ["/api/v1/cost/?window=7d&aggregate=project"],
        "api:project-cost": ["/api/v1/projects/ads/cost/?window=24h"],
        "api:cluster-capacity": ["/api/v1/clusters/member-x/capacity/"],
        "api:prices": ["/api/v1/prices/"],
        "usage:use": ["/usage/use/", "/usage/use/?level=pod&sort=cpu_waste"],
        "usage:project-use": ["/usage/projects/ads/use/", "/usage/projects/ads/use/?workload=PinApp/web&window=6h"],
        "api:use-report": ["/api/v1/use/?level=container"],
        "api:project-use": ["/api/v1/projects/ads/use/?level=pod"],
        "rightsizing:panel": ["/workloads/ads/PinApp/web/recommendations/?window=1h"],
        "rightsizing:apply": ["/workloads/ads/PinApp/web/recommendations/apply/"],
        "api:workload-recommendations": ["/api/v1/projects/ads/workloads/PinApp/web/recommendations/"],
        "api:prices-tier": ["/api/v1/prices/reserved/"],
    }


def url_names(patterns: list[Any], namespace: str = "") -> set[str]:
    names: set[str] = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            names |= url_names(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern) and pattern.name:
            names.add(f"{namespace}{pattern.name}")
    return {n for n in names if not n.startswith(NOT_PAGES)}


def test_every_page_is_in_the_list():
    assert url_names(get_resolver().url_patterns) == set(page_urls())


PAGES = [(name, url) for name, urls in page_urls().items() for url in urls]


@pytest.mark.parametrize("htmx", [False, True], ids=["full", "htmx"])
@pytest.mark.parametrize(("name", "url"), PAGES, ids=[url for _, url in PAGES])
def test_a_get_does_not_write_to_the_database(world, admin_client_, name, url, htmx):
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}

    with CaptureQueriesContext(connection) as queries:
        response = admin_client_.get(url.format(**world), **headers)

    assert response.status_code != 500
    assert [q["sql"][:160] for q in queries if q["sql"].lstrip().lower().startswith(WRITES)] == []
