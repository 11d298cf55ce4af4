"""The catalog kind pages: every kind reachable from the catalog with its example and generated form; the YAML
and the form kept in sync through htmx; invalid or hostile YAML answered inline (400, never a 500); preview;
create through the submission service (written once, redirected to the workload's page) and every refusal
inline with its field paths: spec errors, never fits, an existing name (409), a viewer (403), another tenant (404)."""

from __future__ import annotations

import html
import json
import re

import pytest
import yaml

from pincompute.kinds import KINDS
from tests.support.factories import make_project
from tests.support.kinds import *  # noqa: F403
from tests.support.kinds import posted

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
URL = "/workloads/catalog/pinapps/"


def text(response) -> str:
    return html.unescape(response.content.decode())


def field_error(page: str, name: str) -> str:
    found = re.search(rf'name="{re.escape(name)}"[^>]*aria-invalid.*?invalid-feedback[^>]*>(.*?)</div>', page, re.S)
    return html.unescape(found.group(1)).strip() if found else ""


def test_every_catalog_card_leads_to_its_kind_page_with_example_form_and_editor(granted, developer, client):
    client.force_login(developer)
    catalog = text(client.get("/workloads/catalog/"))

    for info in KINDS.values():
        assert f'href="/workloads/catalog/{info.plural}/"' in catalog
        page = client.get(f"/workloads/catalog/{info.plural}/")
        assert page.status_code == 200
        body = text(page)
        assert "When to pick it" in body and "A working example" in body
        assert 'name="document"' in body and 'name="f~metadata~name"' in body and 'name="project"' in body
        assert f"A valid {info.kind}." in body
    assert client.get("/workloads/catalog/nothings/").status_code == 404


def shown_project(page: str) -> str:
    document = page.split('name="document"')[1].split("</textarea>")[0]
    return re.search(r"^  project: (\S+)$", document, re.M).group(1)


def test_the_project_is_the_one_just_made_then_the_one_last_used(granted, members, developer, client):
    client.force_login(developer)
    make_project("zz-new", developer)  # after ads; ads comes first by name

    made = text(client.get(URL))
    client.post(f"{URL}preview/", posted(text(client.get(f"{URL}?project=ads"))), **HX)  # ads used since
    used = text(client.get(URL))
    make_project("zz-newer", developer)
    newer = text(client.get(URL))

    assert shown_project(made) == "zz-new" and shown_project(used) == "ads" and shown_project(newer) == "zz-newer"
    assert shown_project(text(client.get(f"{URL}?project=zz-new"))) == "zz-new"  # a link's choice wins


def test_a_yaml_edit_re_renders_the_form(granted, developer, client):
    client.force_login(developer)
    data = posted(text(client.get(URL)), source="yaml")
    data["document"] = data["document"].replace("replicas: 2", "replicas: 7")

    response = client.post(f"{URL}sync/", data, **HX)

    assert response.status_code == 200
    page = text(response)
    assert page.startswith('<div id="form-pane"') and re.search(r'name="f~spec~replicas"[^>]*value="7"', page)
    assert 'id="sync-status" class="mt-2" hx-swap-oob="true"' in page and "replicas: 7" in page  # the new base


def test_a_form_change_re_renders_the_yaml(granted, developer, client):
    client.force_login(developer)
    data = posted(text(client.get(URL)), source="form", f__spec__replicas="4", f__spec__tier="Reserved")

    page = text(client.post(f"{URL}sync/", data, **HX))

    assert page.startswith('<div id="yaml-pane"')
    assert "replicas: 4" in page and "tier: Reserved" in page and "readinessProbe:" in page


def test_adding_a_container_re_renders_the_editor(granted, developer, client):
    client.force_login(developer)
    data = posted(text(client.get(URL)), op="add:f~spec~template~containers")

    page = text(client.post(f"{URL}sync/", data, **HX))

    assert page.startswith('<div id="editor">') and 'name="f~spec~template~containers~1~image"' in page
    assert "spec.template.containers[1].image" in page  # named as not valid yet


@pytest.mark.parametrize(
    ("document", "said"),
    [
        ("spec: [unclosed", "not valid YAML"),
        ("a: &x [1]\nb: *x\n", "aliases"),
        ("- just\n- a list\n", "must be one object"),
    ],
)
def test_invalid_or_hostile_yaml_is_a_400_inline_and_the_form_stays(granted, developer, client, document, said):
    client.force_login(developer)
    data = {**posted(text(client.get(URL)), source="yaml"), "document": document}

    response = client.post(f"{URL}sync/", data, **HX)

    assert response.status_code == 400
    assert said in text(response) and 'data-problem="document"' in text(response)
    assert 'name="f~spec~replicas"' in text(response)
    preview = client.post(f"{URL}preview/", data, **HX)
    assert preview.status_code == 400 and said in text(preview)
    created = client.post(f"{URL}create/", data, **HX)
    assert created.status_code == 400 and said in text(created)


def test_preview_shows_placement_quota_and_the_objects(granted, members, developer, client):
    client.force_login(developer)

    response = client.post(f"{URL}preview/", posted(text(client.get(URL))), **HX)

    page = text(response)
    assert response.status_code == 200
    assert 'data-verdict="fits"' in page and 'data-cluster="member-a" data-chosen="true"' in page
    assert 'id="quota-fit"' in page and "data-injected" in page and "config-init" in page
    assert 'id="preview-quota-cpu"' in page and 'id="preview-scores"' in page


def test_the_pods_chart_draws_no_grant_mark_for_a_tier_without_a_pod_cap(granted, members, developer, client):
    client.force_login(developer)

    page = text(client.post(f"{URL}preview/", posted(text(client.get(URL))), **HX))

    chart = json.loads(re.search(r'id="preview-quota-pods" data-chart="(.*?)" role="img"', page).group(1))
    grant = next(d for d in chart["data"]["datasets"] if d["label"] == "Granted")
    assert grant["data"] == [10, 20, None]  # Preemptible has no pod grant: no cap, not a bar of a billion pods


def test_create_writes_once_and_redirects_to_the_workload(host, members, developer, client):
    client.force_login(developer)
    data = posted(text(client.get(URL)), f__metadata__name="shop")

    response = client.post(f"{URL}create/", data, **HX)

    assert response.status_code == 204
    assert response["HX-Redirect"] == "/workloads/ads/PinApp/shop/"
    written = host[("PinApp", "shop")]
    assert written["metadata"]["namespace"] == "proj-ads" and written["spec"]["project"] == "ads"
    plain = client.post(f"{URL}create/", {**data, "f~metadata~name": "shop2"})
    assert plain.status_code == 302 and plain["Location"] == "/workloads/ads/PinApp/shop2/"


def test_an_existing_name_is_a_409_inline(host, developer, client):
    client.force_login(developer)
    data = posted(text(client.get(URL)))
    client.post(f"{URL}create/", data, **HX)

    again = client.post(f"{URL}create/", data, **HX)

    assert again.status_code == 409 and "already exists" in text(again) and len(host) == 1


def test_after_a_refusal_both_panes_show_the_document_refused(host, developer, client):
    client.force_login(developer)
    data = posted(text(client.get(URL)))
    client.post(f"{URL}create/", data, **HX)
    data["document"] = data["document"].replace("replicas: 2", "replicas: 7")  # typed, the form not synced yet

    again = client.post(f"{URL}create/", data, **HX)

    page = text(again)
    assert again.status_code == 409 and "already exists" in page
    assert re.search(r'name="f~spec~replicas"[^>]*value="7"', page)  # the form shows what the YAML pane holds
    assert "replicas: 7" in page.split('name="document"')[1].split("</textarea>")[0]
    base = re.search(r'name="yaml_base" value="(.*?)">', page, re.S).group(1)
    assert "replicas: 7" in base  # the next form change merges over the document shown


def test_spec_errors_show_beside_their_fields(host, developer, client):
    client.force_login(developer)
    data = posted(text(client.get(URL)), f__spec__replicas="-3", f__spec__template__containers__0__image="")

    response = client.post(f"{URL}create/", data, **HX)

    page = text(response)
    assert response.status_code == 400 and not host
    assert "must be at least 0" in field_error(page, "f~spec~replicas")
    assert "is required" in field_error(page, "f~spec~template~containers~0~image")


def test_a_workload_that_never_fits_is_refused_inline_with_the_numbers(host, developer, client):
    client.force_login(developer)
    data = posted(text(client.get(URL)), f__spec__replicas="40")

    response = client.post(f"{URL}create/", data, **HX)

    assert response.status_code == 403 and not host
    assert "can never be admitted" in text(response) and "OnDemand.cpu" in text(response)


def test_a_viewer_cannot_submit_but_may_preview(host, viewer, client):
    client.force_login(viewer)
    page = text(client.get(URL))
    assert "not a developer or owner of any active project" in page
    data = {**posted(page), "project": "ads"}
    data["document"] = data["document"].replace("project: my-project", "project: ads")

    created = client.post(f"{URL}create/", data, **HX)
    previewed = client.post(f"{URL}preview/", data, **HX)

    assert created.status_code == 403 and "you are a viewer" in text(created) and not host
    assert previewed.status_code == 200 and 'id="preview-result"' in text(previewed)  # a preview writes nothing
    assert not host


def test_another_tenants_project_is_404(host, other_project, developer, client):
    client.force_login(developer)
    data = posted(text(client.get(URL)))
    data["document"] = data["document"].replace("project: ads", "project: ml")

    created = client.post(f"{URL}create/", data, **HX)
    previewed = client.post(f"{URL}preview/", data, **HX)

    assert created.status_code == previewed.status_code == 404
    assert "No such project" in text(created) and not host


def test_pages_need_a_sign_in_and_writes_need_post(client):
    assert client.get(URL).status_code == 302
    assert client.post(f"{URL}create/", {}).status_code == 302


@pytest.mark.parametrize(
    ("context", "status", "said"),
    [
        ({"privileged": "true"}, 400, "must be true or false, got a string"),
        (
            {"seccompProfile": {"type": "Unconfined"}},
            400,
            "baseline: seccompProfile.type must be RuntimeDefault or Localhost (Pod Security Standard 'Seccomp')",
        ),
        ({"procMount": "Unmasked"}, 400, "(Pod Security Standard '/proc Mount Type')"),
    ],
)
def test_a_security_context_the_project_refuses_is_named_inline(host, developer, client, context, status, said):
    client.force_login(developer)
    data = posted(text(client.get(URL)), source="yaml")
    document = yaml.safe_load(data["document"])
    document["spec"]["template"]["containers"][0]["securityContext"] = context
    data["document"] = yaml.safe_dump(document)

    response = client.post(f"{URL}create/", data, **HX)

    page = text(response)
    assert response.status_code == status and not host
    assert "spec.template.containers[0].securityContext." in page and said in page
