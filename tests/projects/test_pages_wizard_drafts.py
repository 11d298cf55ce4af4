"""The wizard's drafts hold whatever reaches them: a stale page (the browser's Back) never wipes what was sent,
two wizards of one session sent at the same moment both keep their drafts, a later step is never reached
without the earlier ones passing their checks, and a crafted row index is ignored, never a 500."""

from __future__ import annotations

import html
import re
import threading
from typing import Any

import pytest
from django.conf import settings
from django.db import connections
from django.test import Client

from projects.models import Project, QuotaRequest
from projects.views import wizard as wizard_views
from tests.support.factories import make_quota
from tests.support.projects_pages import (
    BASICS,
    HX,
    invalid_feedback,
    members_post,
    nothing_created,
    quotas_post,
    start,
    step,
    walk_to_review,
)


@pytest.fixture
def wizard(user_client, region, caches):
    return start(user_client)


def wizard_id(url: str) -> str:
    return url.split("/")[3]


def hidden_fields(page: str) -> dict[str, str]:
    """The hidden inputs of a rendered step (CSRF token, management form, and whatever else it carries)."""
    found = {}
    for tag in re.findall(r"<input[^>]*>", page):
        if 'type="hidden"' in tag:
            name = re.search(r'name="([^"]*)"', tag)
            value = re.search(r'value="([^"]*)"', tag)
            if name:
                found[name.group(1)] = html.unescape(value.group(1)) if value else ""
    return found


# --- the browser's Back and a stale page ----------------------------------------------------------------


@pytest.mark.django_db
def test_the_wizard_has_a_url_of_its_own_from_the_first_step_and_is_never_snapshot_by_htmx(user_client, region):
    first = user_client.get("/projects/new/")

    assert first.status_code == 302
    assert re.fullmatch(r"/projects/new/[0-9a-f]+/basics/", first["Location"])
    page = user_client.get(first["Location"])
    assert page.status_code == 200 and f'action="{first["Location"]}"' in page.content.decode()
    # htmx keeps no snapshot of a wizard page (it holds the attributes, not what was typed): Back asks the server,
    # which renders the step from the draft; and no HTTP cache answers Back with an old copy either.
    assert 'hx-history="false"' in page.content.decode()
    assert "no-store" in page["Cache-Control"]


@pytest.mark.django_db
def test_back_to_a_step_shows_what_was_sent_from_the_draft(user_client, wizard, other_user):
    user_client.post(wizard, {**BASICS, "go": "next"}, **HX)
    user_client.post(step(wizard, "members"), members_post(("user", other_user.username, "viewer")), **HX)

    # What htmx asks for on Back (a history restore): the full page of the step, filled from the draft.
    restore = {**HX, "HTTP_HX_HISTORY_RESTORE_REQUEST": "true"}
    members = user_client.get(step(wizard, "members"), **restore).content.decode()
    basics = user_client.get(wizard, **restore).content.decode()

    assert f'value="{other_user.username}"' in members and '<option value="viewer" selected>' in members
    assert 'value="search"' in basics and 'value="CC-9"' in basics


@pytest.mark.django_db
def test_a_stale_step_sent_again_never_wipes_the_draft(user_client, wizard, other_user):
    """The page of a step as it was before it was sent (an htmx snapshot, another tab): sending it is refused
    with what is saved now, instead of storing its empty fields over the draft."""
    stale_members = user_client.post(wizard, {**BASICS, "go": "next"}, **HX).content.decode()
    user_client.post(step(wizard, "members"), members_post(("user", other_user.username, "viewer")), **HX)

    resent = user_client.post(
        step(wizard, "members"), {**hidden_fields(stale_members), **members_post(("user", "", "developer"))}, **HX
    )

    assert resent.status_code == 409
    assert f'value="{other_user.username}"' in resent.content.decode()  # what is saved, shown again
    assert "out of date" in resent.content.decode()
    again = user_client.get(step(wizard, "members")).content.decode()
    assert f'value="{other_user.username}"' in again
    review = walk_on(user_client, wizard, ("user", other_user.username, "viewer"))
    assert f"<strong>{other_user.username}</strong>" in review


@pytest.mark.django_db
def test_a_stale_basics_page_sent_again_keeps_the_basics(user_client, wizard):
    stale_basics = user_client.get(wizard).content.decode()
    user_client.post(wizard, {**hidden_fields(stale_basics), **BASICS, "go": "next"}, **HX)

    resent = user_client.post(wizard, {**hidden_fields(stale_basics), "name": "", "team": "", "go": "next"}, **HX)

    assert resent.status_code == 409
    assert 'value="search"' in user_client.get(wizard).content.decode()


@pytest.mark.django_db
def test_a_form_whose_draft_is_gone_is_taken_as_it_is(user_client, wizard):
    """A draft that expired (or a wizard already created) has nothing newer than the page: what it holds is all
    there is, so it is stored, not refused."""
    response = user_client.post(wizard, {**BASICS, "draft_version": "7", "go": "next"}, **HX)

    assert response.status_code == 200 and response["HX-Push-Url"] == step(wizard, "members")


@pytest.mark.django_db
def test_a_member_row_sent_again_unchanged_is_kept(user_client, wizard, other_user):
    user_client.post(wizard, {**BASICS, "go": "next"}, **HX)
    row = ("user", other_user.username, "viewer")
    user_client.post(step(wizard, "members"), members_post(row, go="back"), **HX)

    again = user_client.post(step(wizard, "members"), members_post(row), **HX)  # the same row, as it is stored

    assert again.status_code == 200 and again["HX-Push-Url"] == step(wizard, "quotas")
    assert f'value="{other_user.username}"' in user_client.get(step(wizard, "members")).content.decode()


def walk_on(client, wizard, *rows: tuple[str, str, str]) -> str:
    """From members (already sent) to review, sending each step with the hidden fields it is shown with."""
    members = client.get(step(wizard, "members")).content.decode()
    sent = client.post(step(wizard, "members"), {**hidden_fields(members), **members_post(*rows)}, **HX)
    assert sent.status_code == 200, sent.content.decode()[:3000]
    quotas = client.get(step(wizard, "quotas")).content.decode()
    sent = client.post(step(wizard, "quotas"), {**hidden_fields(quotas), **quotas_post()}, **HX)
    assert sent.status_code == 200, sent.content.decode()[:3000]
    return client.get(step(wizard, "review")).content.decode()


# --- two wizards of one session sent at the same moment ------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_two_wizards_sent_at_the_same_moment_both_keep_their_drafts(client, user, region, caches, monkeypatch):
    client.force_login(user)
    first, second = start(client), start(client)
    assert first != second
    meet = threading.Barrier(2, timeout=30)
    waited = threading.local()
    check = wizard_views._check

    def after_both_read(*args: Any) -> None:
        if not getattr(waited, "done", False):  # both requests have read their drafts before either answers
            waited.done = True
            meet.wait()
        check(*args)

    monkeypatch.setattr(wizard_views, "_check", after_both_read)
    answers: dict[str, int] = {}
    failures: list[BaseException] = []

    def send(url: str, name: str) -> None:
        tab = Client()  # another tab of the same browser: the same session cookie
        tab.cookies[settings.SESSION_COOKIE_NAME] = client.cookies[settings.SESSION_COOKIE_NAME].value
        try:
            answers[url] = tab.post(url, {**BASICS, "name": name, "go": "next"}, **HX).status_code
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            failures.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=send, args=(url, name)) for url, name in ((first, "alpha"), (second, "beta"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert not failures and answers == {first: 200, second: 200}
    for url, name in ((first, "alpha"), (second, "beta")):
        members = client.get(step(url, "members"))
        assert members.status_code == 200, f"the draft of {url} was lost"
        assert f'value="{name}"' in client.get(url).content.decode()


# --- a later step is reached only through the earlier ones ---------------------------------------------


@pytest.mark.django_db
def test_review_posted_without_any_step_sends_back_to_basics_with_its_errors(user_client, wizard):
    response = user_client.post(step(wizard, "review"), {"go": "next"}, **HX)

    assert response.status_code == 400
    assert response["HX-Push-Url"] == wizard
    assert "Give the project a name." in invalid_feedback(response.content.decode())
    assert user_client.get(step(wizard, "review")).status_code == 302  # review was not reached
    created = user_client.post(f"/projects/new/{wizard_id(wizard)}/create/", **HX)
    assert created.status_code in (302, 400) and nothing_created()


@pytest.mark.django_db
def test_a_refused_quota_cannot_be_skipped_by_posting_review_then_create(user_client, wizard):
    user_client.post(wizard, {**BASICS, "go": "next"}, **HX)
    user_client.post(step(wizard, "members"), members_post(), **HX)
    refused = user_client.post(step(wizard, "quotas"), quotas_post(ondemand={"cpu": "100000"}), **HX)
    assert refused.status_code == 400

    review = user_client.post(step(wizard, "review"), {"go": "next"}, **HX)
    created = user_client.post(f"/projects/new/{wizard_id(wizard)}/create/", **HX)

    for response in (review, created):
        assert response.status_code == 400
        assert response["HX-Push-Url"] == step(wizard, "quotas")
        errors = invalid_feedback(response.content.decode())
        assert len(errors) == 1 and "left in the region" in errors[0]
        assert 'value="100000"' in response.content.decode()  # what was typed stays in the field
    assert nothing_created() and not QuotaRequest.objects.exists()


@pytest.mark.django_db
def test_a_plain_post_of_review_past_a_refused_step_is_refused_too(user_client, wizard):
    user_client.post(wizard, {**BASICS, "go": "next"})
    user_client.post(step(wizard, "members"), members_post())
    user_client.post(step(wizard, "quotas"), quotas_post(reserved={"cpu": "65"}))

    review = user_client.post(step(wizard, "review"), {"go": "next"})
    created = user_client.post(f"/projects/new/{wizard_id(wizard)}/create/")

    assert review.status_code == 400 and created.status_code == 400
    assert "more than the 64 left in the region's Reserved pools" in " ".join(
        invalid_feedback(created.content.decode())
    )
    assert nothing_created()


@pytest.mark.django_db
def test_members_posted_before_basics_passed_sends_back_to_basics_and_keeps_the_rows(user_client, wizard):
    user_client.post(wizard, {**BASICS, "team": "", "go": "next"}, **HX)  # refused: no team

    response = user_client.post(step(wizard, "members"), members_post(("user", "nob", "viewer")), **HX)

    assert response.status_code == 400 and response["HX-Push-Url"] == wizard
    assert "Give the team." in invalid_feedback(response.content.decode())
    fixed = user_client.post(wizard, {**BASICS, "go": "next"}, **HX)
    assert fixed.status_code == 200 and 'value="nob"' in fixed.content.decode()  # the rows were kept, unchecked


@pytest.mark.django_db
def test_create_agrees_with_the_quota_step_when_the_region_filled_up_meanwhile(user_client, wizard, other_user):
    walk_to_review(user_client, wizard, other_user, reserved={"cpu": "12"})  # 12 of 64 left: a request
    make_quota("reserved", 60, project="other")  # only 4 left now

    response = user_client.post(f"/projects/new/{wizard_id(wizard)}/create/", **HX)

    assert response.status_code == 400
    assert response["HX-Push-Url"] == step(wizard, "quotas")
    assert "more than the 4 left in the region's Reserved pools" in " ".join(
        invalid_feedback(response.content.decode())
    )
    assert not Project.objects.filter(name="search").exists() and not QuotaRequest.objects.exists()


# --- a crafted row index ---------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "index",
    ["²", "9" * 5000, "\uff11", "-1", "", "1e3", " 0"],
    ids=["superscript-two", "5000-digits", "fullwidth-one", "negative", "empty", "exponent", "space"],
)
def test_a_remove_index_that_is_not_a_row_number_is_ignored(user_client, wizard, index):
    user_client.post(wizard, {**BASICS, "go": "next"}, **HX)

    response = user_client.post(
        step(wizard, "members"), members_post(("user", "nob", "viewer"), go=f"remove-{index}"), **HX
    )

    assert response.status_code == 200
    assert 'value="nob"' in response.content.decode()
