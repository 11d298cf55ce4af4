# ruff: noqa: F811 - fixtures imported from tests.support are named as parameters
"""The search service, the page, the box's suggestions and the API over the caches the pages read and the
database: a user finds their projects' workloads and pods and never another tenant's; clusters, nodes, users,
groups and audit entries are searched for platform admins only; bad queries name ``q``."""

from __future__ import annotations

import pytest

from base.models import AuditEvent
from projects.models import Membership, Project
from search import services
from search.ranking import Rank
from tests.support.api_host import client_for
from tests.support.factories import HOST, fill, make_cluster, workload_cr
from tests.support.fakes import FilledCache, fake_pod
from tests.support.projects import caches, developer, fast_passwords  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def tenants(caches, developer, django_user_model, settings):
    """``ads`` (the developer's) and ``ml`` (another team's), each with a workload and its pods on member-a. No log
    archive: the session's holds earlier tests' pods of a project ``ads`` (found as gone pods, tested in
    tests/debugging/test_log_archive_live.py), and these tests rank what the caches hold."""
    settings.LOG_ARCHIVE_URL = ""
    ads = Project.objects.create(name="ads", team="ads-team", cost_center="CC-1")
    ml = Project.objects.create(name="ml", team="ml-team", cost_center="CC-2")
    Membership.objects.create(project=ads, user=developer, role="developer")
    make_cluster("member-a")
    for project, name in ((ads, "checkout-web"), (ml, "checkout-train")):
        fill(caches, HOST, workload_cr(name, project=project.name))
    caches["member-a"] = FilledCache(
        {
            "pods": [
                fake_pod("checkout-web-5d8f-x1", "proj-ads", labels={"pincompute.io/workload": "checkout-web"}),
                fake_pod("checkout-train-0", "proj-ml", labels={"pincompute.io/workload": "checkout-train"}),
            ],
            "nodes": [{"metadata": {"name": "checkout-node-1"}}],
        }
    )
    return ads, ml


def names(results: services.Results) -> list[tuple[str, str]]:
    return [(h.kind, h.name) for h in results.hits]


def test_a_developer_finds_their_projects_things_and_nothing_of_another_tenant(tenants, developer):
    found = names(services.search(developer, "checkout"))

    assert found == [("workload", "checkout-web"), ("pod", "checkout-web-5d8f-x1")]


def test_ranked_exact_then_prefix_then_word_then_within(tenants, developer):
    hits = services.search(developer, "web").hits

    assert [(h.name, h.rank) for h in hits] == [("checkout-web", Rank.WORD), ("checkout-web-5d8f-x1", Rank.WORD)]
    assert [h.name for h in services.search(developer, "ads").hits] == ["ads"]
    assert services.search(developer, "ads").hits[0].rank is Rank.EXACT


def test_an_admin_also_finds_clusters_nodes_users_groups_and_audit_entries(tenants, admin_user, developer):
    AuditEvent.objects.create(
        actor_name="dev1", action="workload.create", target_kind="PinApp", target_name="checkout-web"
    )

    found = names(services.search(admin_user, "checkout", limit=50))
    kinds = {kind for kind, _ in found}

    assert ("workload", "checkout-train") in found and ("pod", "checkout-train-0") in found
    assert ("node", "checkout-node-1") in found and "audit" in kinds
    assert names(services.search(admin_user, "member-a"))[0] == ("cluster", "member-a")
    assert names(services.search(admin_user, developer.username))[0] == ("user", developer.username)
    assert names(services.search(developer, "member-a")) == []  # clusters are for admins only
    assert names(services.search(developer, developer.username)) == []


def test_the_limit_and_more(tenants, admin_user):
    results = services.search(admin_user, "checkout", limit=2)

    assert len(results.hits) == 2 and results.more


@pytest.mark.parametrize(("query", "message"), [("", "type at least one character"), ("x" * 101, "at most 100")])
def test_a_bad_query_names_q_in_the_api_and_on_the_page(tenants, developer, client, query, message):
    answer = client_for(developer).get("/api/v1/search/", {"q": query})
    assert answer.status_code == 400
    [field] = answer.json()["error"]["fields"]
    assert field["path"] == "q" and message in field["message"]

    client.force_login(developer)
    page = client.get("/search/", {"q": query})
    shown = (page.status_code, "data-search-problem" in page.content.decode())
    assert shown == ((400, True) if query.strip() else (200, False))


def test_the_api_answers_ranked_hits_with_their_pages(tenants, developer):
    answer = client_for(developer).get("/api/v1/search/", {"q": "checkout", "limit": "1"})

    assert answer.status_code == 200
    assert answer.json() == {
        "query": "checkout",
        "results": [
            {
                "kind": "workload",
                "name": "checkout-web",
                "where": "PinApp in ads, team ads",
                "project": "ads",
                "team": "ads",
                "url": "/workloads/ads/PinApp/checkout-web/",
                "rank": "prefix",
            }
        ],
        "more": True,
    }
    assert client_for(developer).get("/api/v1/search/", {"q": "a", "limit": "0"}).status_code == 400


def test_the_page_and_the_suggestions_show_links_and_the_box_is_on_every_page(tenants, developer, client):
    client.force_login(developer)

    page = client.get("/search/", {"q": "checkout"}).content.decode()
    dropdown = client.get("/search/suggest/", {"q": "checkout"}).content.decode()
    dashboard = client.get("/").content.decode()

    assert 'href="/workloads/ads/PinApp/checkout-web/"' in page and "checkout-train" not in page
    assert 'href="/debug/member-a/proj-ads/checkout-web-5d8f-x1/"' in dropdown and "Every result" in dropdown
    assert "data-search-input" in dashboard


def test_a_deleted_workload_is_found_with_its_history_page_and_never_by_another_tenant(tenants, developer, other_user):
    from django.utils import timezone

    from workloads.history.models import WorkloadRecord

    ads, ml = tenants
    for project, name in ((ads, "checkout-old"), (ml, "checkout-gone")):
        WorkloadRecord.objects.create(project=project, uid=f"uid-{name}", kind="PinApp", name=name,
                                      namespace=project.namespace, deleted_at=timezone.now())  # fmt: skip

    hits = {h.name: h for h in services.search(developer, "checkout", limit=50).hits}

    assert hits["checkout-old"].url == "/workloads/ads/deleted/PinApp/checkout-old/"
    assert hits["checkout-old"].where.startswith("deleted PinApp in ads, ")
    assert "checkout-gone" not in hits and services.search(other_user, "checkout").hits == []
