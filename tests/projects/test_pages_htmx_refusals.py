"""htmx answers that keep their message and leave the page whole.

- A refusal raised to the error middleware (a 409, a 400 from a crafted value, a body over the size limit) is
  answered to an htmx swap with the message (``HX-Trigger: show-message``) and nothing to swap
  (``HX-Reswap: none``), never with a whole error page that htmx would put into a card; a plain request keeps
  the full error page.
- A refusal from a stale tab (a request decided in another tab, a project archived in another tab) is shown in
  the section that answers it, even when that section no longer shows the form it came from.
- The provisioning section's ``watch`` counter: digits ``int`` refuses (``²``, 5,000 nines) are ignored.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from django.test import Client
from django.utils import timezone

from projects.grants import QuotaInput
from projects.models import Project, ProjectState, QuotaRequest
from projects.quota import approve_request, change_quota

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def text(response) -> str:
    return html.unescape(response.content.decode())


def is_document(response) -> bool:
    return bool(re.match(r"\s*(<!doctype|<html)", response.content.decode(), re.I))


def shown_message(response) -> dict:
    """The message an htmx answer asks the page to show (static/src/js/htmx-setup.js)."""
    return json.loads(response["HX-Trigger"])["show-message"]


def archive_elsewhere(project: Project) -> None:
    """What another tab's "Archive" did, behind this page's back."""
    Project.objects.filter(pk=project.pk).update(state=ProjectState.ARCHIVED, archived_at=timezone.now())


@pytest.fixture
def owner_client(client, owner):
    client.force_login(owner)
    return client


# --- #10: refusals raised to the middleware --------------------------------------------------------------


def test_a_conflict_is_a_message_for_htmx_and_the_error_page_otherwise(project, owner_client):
    archive_elsewhere(project)

    swapped = owner_client.post("/projects/ads/shell-recording/", {"record_shells": "1"}, **HX)
    plain = owner_client.post("/projects/ads/shell-recording/", {"record_shells": "1"})

    assert swapped.status_code == 409 and not is_document(swapped)
    assert swapped["HX-Reswap"] == "none"
    assert shown_message(swapped) == {"level": "danger", "text": "ads is archived; nothing in it can change."}
    assert plain.status_code == 409 and is_document(plain) and "ads is archived" in text(plain)
    assert "HX-Trigger" not in plain and "HX-Reswap" not in plain


@pytest.mark.parametrize(
    ("path", "data", "message"),
    [
        ("/projects/ads/shell-recording/", {"record_shells": "2"}, "Give 1 (record shells) or 0 (do not)."),
        ("/projects/ads/quota/", {"tier": "bogus"}, "Choose one of reserved, ondemand, preemptible."),
    ],
)
def test_a_crafted_value_is_a_400_message_not_a_page(project, owner_client, path, data, message):
    response = owner_client.post(path, data, **HX)

    assert response.status_code == 400 and not is_document(response)
    assert response["HX-Reswap"] == "none" and shown_message(response)["text"] == message


def test_a_body_over_the_limit_is_a_message_for_htmx(project, owner_client, settings):
    settings.REQUEST_BODY_MAX_BYTES = 2000
    data = {"display_name": "x" * 5000, "team": "ads", "cost_center": "CC-1", "description": ""}

    swapped = owner_client.post("/projects/ads/basics/", data, **HX)
    plain = owner_client.post("/projects/ads/basics/", data)

    assert swapped.status_code == 413 and not is_document(swapped) and swapped["HX-Reswap"] == "none"
    assert "over the limit of 2000 bytes" in shown_message(swapped)["text"]
    assert plain.status_code == 413 and is_document(plain) and b"over the limit" in plain.content


def test_a_body_over_the_limit_is_refused_before_the_csrf_check_reads_the_form(project, owner, settings):
    browser = Client(enforce_csrf_checks=True)  # as a browser: the CSRF check reads the form before any view
    browser.force_login(owner)
    token = browser.get("/projects/ads/").cookies["csrftoken"].value
    settings.REQUEST_BODY_MAX_BYTES = 2000
    data = {"display_name": "x" * 5000, "team": "ads", "cost_center": "CC-1", "description": ""}

    response = browser.post("/projects/ads/basics/", data, HTTP_X_CSRFTOKEN=token, **HX)

    assert response.status_code == 413 and not is_document(response) and response["HX-Reswap"] == "none"
    assert shown_message(response)["text"] == (
        "The request body is over the limit of 2000 bytes (REQUEST_BODY_MAX_BYTES); nothing was read or saved."
    )


def test_a_refusal_the_view_answers_inline_is_left_as_it_is(project, owner_client):
    response = owner_client.post("/projects/ads/basics/", {"display_name": "", "team": "", "cost_center": ""}, **HX)

    assert response.status_code == 400 and 'id="basics"' in text(response)
    assert "HX-Reswap" not in response and "HX-Trigger" not in response


def test_django_s_debug_page_is_a_message_for_htmx_too(project, owner_client, settings):
    settings.DEBUG = True  # Django answers a refusal with its technical page then (the dev server)

    response = owner_client.post("/projects/ads/shell-recording/", {"record_shells": "2"}, **HX)

    assert response.status_code == 400 and not is_document(response)
    assert shown_message(response)["text"] == "Give 1 (record shells) or 0 (do not)."


def test_a_whole_page_a_view_answers_with_its_errors_is_left_as_it_is(project, owner_client):
    """The usage page answers its htmx filter with the whole page, which the form picks its body from (hx-select)."""
    response = owner_client.get("/usage/projects/ads/", {"window": "bogus"}, **HX)

    assert response.status_code == 400 and is_document(response) and 'id="usage-body"' in text(response)
    assert "HX-Reswap" not in response and "HX-Trigger" not in response


def test_a_missing_project_is_the_same_404_message_for_htmx_whoever_owns_it(project, other_project, owner_client):
    theirs = owner_client.get("/projects/ml/members/", **HX)
    made_up = owner_client.get("/projects/nope/members/", **HX)

    assert theirs.status_code == made_up.status_code == 404
    assert not is_document(theirs) and theirs.content == made_up.content
    assert shown_message(theirs) == shown_message(made_up) == {"level": "danger", "text": "That no longer exists."}


# --- #11: refusals from a stale tab ----------------------------------------------------------------------


@pytest.fixture
def asked(project, owner):
    """A pending request of ads: Reserved cpu 0 -> 12 (beyond the auto-approve limit of 8)."""
    return change_quota(project, "reserved", QuotaInput(cpu="12", memory="8Gi"), actor=owner, reason="launch").request


@pytest.mark.parametrize("decision", ["approve", "reject"])
@pytest.mark.parametrize("headers", [HX, {}], ids=["htmx", "plain"])
def test_deciding_a_request_already_decided_in_another_tab_says_so(asked, client, admin_user, decision, headers):
    approve_request(asked.pk, actor=admin_user, reason="")  # the other tab
    client.force_login(admin_user)

    response = client.post(f"/projects/requests/{asked.pk}/{decision}/", {f"r{asked.pk}-reason": "why"}, **headers)

    assert response.status_code == 409
    assert f"Quota request #{asked.pk} was already applied." in text(response)
    assert QuotaRequest.objects.get(pk=asked.pk).state == "applied"


def test_adding_a_member_to_a_project_archived_in_another_tab_says_so(project, other_user, owner_client):
    archive_elsewhere(project)

    response = owner_client.post(
        "/projects/ads/members/", {"op": "add", "add-kind": "user", "add-name": "dev2", "add-role": "viewer"}, **HX
    )

    assert response.status_code == 409 and 'id="members"' in text(response)
    assert "ads is archived; nothing in it can change." in text(response)


def test_changing_quota_of_a_project_archived_in_another_tab_says_so(project, owner_client):
    archive_elsewhere(project)
    amounts = {"reserved-cpu": "2", "reserved-memory": "4Gi", "reserved-gpu": "0", "reserved-pods": "10"}

    response = owner_client.post("/projects/ads/quota/", {"tier": "reserved", **amounts}, **HX)

    assert response.status_code == 409 and 'id="quota"' in text(response)
    assert "ads is archived; nothing in it can change." in text(response)


# --- #1: the provisioning section's watch counter --------------------------------------------------------


@pytest.mark.parametrize("watch", ["²", "9" * 5000, "٤", "-3", "+3", "3_0", ""], ids=lambda w: w[:8])
def test_a_watch_value_int_would_refuse_is_ignored(project, owner_client, watch):
    response = owner_client.get("/projects/ads/provisioning/", {"watch": watch}, **HX)

    assert response.status_code == 200 and 'id="provisioning"' in text(response)
    assert "?watch=" not in text(response)


def test_a_watch_value_counts_down_and_is_capped(project, owner_client):
    counting = text(owner_client.get("/projects/ads/provisioning/?watch=3", **HX))
    capped = text(owner_client.get("/projects/ads/provisioning/?watch=999999", **HX))

    assert "/projects/ads/provisioning/?watch=2" in counting
    assert "/projects/ads/provisioning/?watch=14" in capped


def test_a_partial_whose_session_ended_sends_the_browser_to_sign_in_and_back_to_the_page(client):
    """Not the sign-in page swapped into a card: the whole page goes to sign in, then back to the page (not the
    partial's URL)."""
    response = client.get(
        "/projects/ads/provisioning/",
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL="http://testserver/projects/ads/?tab=1",
    )

    assert response.status_code == 200
    assert response["HX-Redirect"] == "/login/?next=%2Fprojects%2Fads%2F%3Ftab%3D1"
    assert response.content == b""


def test_a_partial_from_another_origin_is_sent_to_sign_in_without_a_next(client):
    response = client.get(
        "/projects/ads/provisioning/", HTTP_HX_REQUEST="true", HTTP_HX_CURRENT_URL="https://evil.example/x"
    )

    assert response["HX-Redirect"] == "/login/"


def test_a_whole_page_whose_session_ended_is_redirected_as_before(client):
    response = client.get("/projects/ads/")

    assert response.status_code == 302 and response["Location"].startswith("/login/?next=")
