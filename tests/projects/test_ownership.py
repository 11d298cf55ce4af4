"""A project's ownership: owners replace its team, on-call contact and links (validated by the platform library,
audited, the team provisioned), every member reads them on the page and through the API; developers and viewers
cannot change them, another tenant's is a 404."""

from __future__ import annotations

import pytest

from base.models import AuditEvent

pytestmark = pytest.mark.django_db

URL = "/api/v1/projects/{}/ownership/"
RUNBOOK = {"kind": "runbook", "title": "Runbook", "url": "https://wiki.example.com/ads/runbook"}
BODY = {"oncall": "#ads-oncall", "links": [RUNBOOK, {"kind": "repository", "title": "Code", "url": "http://git/ads"}]}


def put(api_client, user, name, body):
    api_client.force_authenticate(user)
    return api_client.put(URL.format(name), body, format="json")


def test_an_owner_sets_the_oncall_contact_and_links_audited(api_client, project, owner):
    answer = put(api_client, owner, "ads", BODY)

    assert answer.status_code == 200, answer.content
    assert answer.json() == {"team": project.team, **BODY}
    project.refresh_from_db()
    assert (project.oncall, project.links) == ("#ads-oncall", BODY["links"])
    event = AuditEvent.objects.get(action="project.ownership.set")
    assert (event.actor_name, event.project_name) == ("dev1", "ads")
    assert event.before == {"links": [], "oncall": ""} and event.after == {
        "links": BODY["links"],
        "oncall": "#ads-oncall",
    }


def test_a_new_team_is_provisioned_and_the_same_body_again_writes_nothing(api_client, project, owner):
    project.refresh_from_db()
    generation = project.generation

    put(api_client, owner, "ads", {**BODY, "team": "ads-infra"})
    again = put(api_client, owner, "ads", {**BODY, "team": "ads-infra"})

    assert again.status_code == 200 and again.json()["team"] == "ads-infra"
    project.refresh_from_db()
    assert project.team == "ads-infra" and project.generation == generation + 1
    assert AuditEvent.objects.filter(action="project.ownership.set").count() == 1


def test_every_member_reads_it(api_client, project, viewer):
    project.oncall = "ads@example.com"
    project.save()
    api_client.force_authenticate(viewer)

    answer = api_client.get(URL.format("ads"))

    assert answer.status_code == 200
    assert answer.json() == {"team": project.team, "oncall": "ads@example.com", "links": []}


@pytest.mark.parametrize("who", ["developer", "viewer"])
def test_developers_and_viewers_cannot_change_it_even_with_a_bad_body(api_client, project, request, who):
    for body in (BODY, {"oncall": "call bob", "links": "x"}):
        assert put(api_client, request.getfixturevalue(who), "ads", body).status_code == 403
    project.refresh_from_db()
    assert project.oncall == "" and not AuditEvent.objects.filter(action="project.ownership.set").exists()


def test_another_tenants_project_is_not_found(api_client, project, other_project, owner):
    assert put(api_client, owner, "ml", BODY).status_code == 404
    assert api_client.get(URL.format("ml")).status_code == 404


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ({"oncall": "call bob"}, "oncall", "is not an on-call contact"),
        ({"oncall": 7}, "oncall", "Give text."),
        ({"team": ""}, "team", "Give the team."),
        ({"team": "x" * 81}, "team", "at most 80"),
        ({"links": [{"title": "Wiki", "url": "javascript:alert(1)"}]}, "links[0].url", "http:// or https://"),
        ({"links": [{"title": "Wiki", "url": "https://u:p@wiki.example.com"}]}, "links[0].url", "user or password"),
        ({"links": [{"kind": "wiki", "title": "W", "url": "https://w.example.com"}]}, "links[0].kind", "Use one of"),
        ({"links": [{"url": "https://w.example.com"}]}, "links[0].title", "Give a title."),
        ({"links": [RUNBOOK] * 11}, "links", "at most 10"),
        ({"links": {"url": "https://w.example.com"}}, "links", "Give a list"),
        ({"owner": "bob"}, "owner", "Not a field"),
    ],
)
def test_bad_input_names_the_field_and_changes_nothing(api_client, project, owner, body, field, says):
    answer = put(api_client, owner, "ads", body)

    assert answer.status_code == 400, answer.content
    fields = {f["path"]: f["message"] for f in answer.json()["error"]["fields"]}
    assert says in fields[field]
    project.refresh_from_db()
    assert (project.oncall, project.links, project.team) == ("", [], "ads")


def test_an_archived_project_cannot_change(api_client, project, owner):
    project.state = "archived"
    project.save()

    assert put(api_client, owner, "ads", BODY).status_code == 409


def test_the_page_shows_it_and_an_owner_edits_it(client, project, owner):
    project.oncall, project.links = "https://pager.example.com/ads", [RUNBOOK]
    project.save()
    client.force_login(owner)

    page = client.get("/projects/ads/").content.decode()
    form = client.get("/projects/ads/ownership/?edit=1", HTTP_HX_REQUEST="true").content.decode()
    saved = client.post(
        "/projects/ads/ownership/",
        {
            "team": "ads",
            "oncall": "@ads-oncall",
            "rows": "3",
            **{f"link-0-{k}": v for k, v in RUNBOOK.items()},
            **{
                "link-2-kind": "dashboard",
                "link-2-title": "Grafana",
                "link-2-url": "https://grafana.example.com/d/ads",
            },
        },
        HTTP_HX_REQUEST="true",
    )

    assert 'href="https://pager.example.com/ads"' in page and 'data-link="runbook"' in page
    assert 'name="link-1-url"' in form and 'name="oncall"' in form
    assert saved.status_code == 200 and 'data-link="dashboard"' in saved.content.decode()
    project.refresh_from_db()
    assert [link["title"] for link in project.links] == ["Runbook", "Grafana"] and project.oncall == "@ads-oncall"


def test_the_page_puts_each_error_beside_its_field(client, project, owner):
    client.force_login(owner)

    answer = client.post(
        "/projects/ads/ownership/",
        {"team": "ads", "oncall": "call bob", "rows": "3", "link-2-title": "Wiki", "link-2-url": "ftp://wiki"},
        HTTP_HX_REQUEST="true",
    )

    body = answer.content.decode()
    assert answer.status_code == 400
    assert 'data-error="oncall"' in body and 'data-error="links[2].url"' in body  # the row as shown, not as sent
    assert 'value="ftp://wiki"' in body  # the form as given
    project.refresh_from_db()
    assert project.oncall == "" and project.links == []


@pytest.mark.parametrize("who", ["developer", "viewer"])
def test_developers_and_viewers_see_no_edit_button_and_cannot_post(client, project, request, who):
    client.force_login(request.getfixturevalue(who))

    section = client.get("/projects/ads/ownership/?edit=1", HTTP_HX_REQUEST="true").content.decode()
    refused = client.post("/projects/ads/ownership/", {"team": "x", "oncall": "@x", "rows": "0"})

    assert "data-ownership" in section and "Edit</button>" not in section and 'name="oncall"' not in section
    assert refused.status_code == 403
    project.refresh_from_db()
    assert project.team == "ads"


def test_another_tenants_section_is_not_found(client, project, other_project, owner):
    client.force_login(owner)
    assert client.get("/projects/ml/ownership/").status_code == 404
    assert client.post("/projects/ml/ownership/", {"oncall": "@x", "rows": "0"}).status_code == 404


def test_the_service_itself_refuses_a_viewer_and_another_tenant_before_reading_the_body(project, viewer, other_user):
    from base.errors import Forbidden, NotFound
    from projects.ownership import set_ownership

    with pytest.raises(Forbidden):
        set_ownership(project, {"oncall": 7}, actor=viewer)
    with pytest.raises(NotFound):
        set_ownership(project, {"oncall": 7}, actor=other_user)
