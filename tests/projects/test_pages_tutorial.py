"""The tutorial: from an empty project to a first workload and a first shell, with the user's own project,
links built from real URLs, and a first workload the core accepts."""

from __future__ import annotations

import html

import pytest
import yaml

from pincompute.specs import parse
from projects.views.pages import first_workload
from tests.support.factories import fill, make_project
from tests.support.fakes import fake_pod

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return html.unescape(response.content.decode())


def test_the_empty_project_list_links_the_wizard_and_the_tutorial(user_client):
    page = text(user_client.get("/projects/"))

    assert "You are not in any project yet" in page
    assert 'href="/projects/new/"' in page and 'href="/projects/tutorial/"' in page


def test_without_a_project_the_tutorial_starts_with_onboarding(user_client):
    page = text(user_client.get("/projects/tutorial/"))

    assert 'href="/projects/new/"' in page and 'href="/workloads/"' in page
    assert "kind: PinPod" not in page


def test_the_tutorial_uses_the_users_project_and_real_links(project, owner, client):
    client.force_login(owner)

    page = text(client.get("/projects/tutorial/?project=ads"))

    assert "namespace: proj-ads" in page and "project: ads" in page and "tier: OnDemand" in page
    assert "export PINCONSOLE_URL=http://testserver PINCONSOLE_TOKEN=pct_..." in page  # this portal, any install
    assert "pincompute apply -f hello.yaml -n ads" in page and "pip install ./sdk" in page
    assert "pincompute logs POD -n ads -f" in page and "pincompute exec -it POD -n ads" in page
    assert "kubectl" not in page and "devtools" not in page  # nothing only the dev stack has
    for link in (
        "/projects/ads/",
        "/workloads/",
        "/workloads/catalog/pinpods/",
        "/workloads/ads/PinPod/hello/",
        "/tokens/",
    ):
        assert f'href="{link}' in page, link


def test_with_pods_in_the_caches_the_tutorial_links_their_shells(project, owner, caches, client):
    fill(caches, "member-b", pods=[fake_pod("hello", "proj-ads")])
    client.force_login(owner)

    page = text(client.get("/projects/tutorial/"))

    assert 'href="/debug/member-b/proj-ads/hello/shell/"' in page
    assert 'href="/debug/member-b/proj-ads/hello/"' in page


def test_a_viewer_is_told_they_cannot_deploy_and_gets_no_shell_button(project, viewer, caches, client):
    fill(caches, "member-a", pods=[fake_pod("hello", "proj-ads")])
    client.force_login(viewer)

    page = text(client.get("/projects/tutorial/"))

    assert "You are a viewer of ads" in page
    assert "/shell/" not in page and 'href="/debug/member-a/proj-ads/hello/"' in page


def test_another_tenants_project_is_not_offered(project, other_project, owner, client):
    client.force_login(owner)

    page = text(client.get("/projects/tutorial/?project=ml"))

    assert "proj-ml" not in page and "namespace: proj-ads" in page


def test_the_first_workload_is_a_valid_pinpod(project):
    manifest = yaml.safe_load(yaml.safe_dump(first_workload(project)))

    workload = parse(manifest)

    assert workload.meta.tier.value == "OnDemand" and manifest["metadata"]["namespace"] == "proj-ads"


def test_the_first_workload_spells_a_team_with_spaces_as_a_label_value(db):
    project = make_project("ranking", team="Ads Ranking")

    workload = parse(yaml.safe_load(yaml.safe_dump(first_workload(project))))

    assert workload.meta.team == "Ads-Ranking"
