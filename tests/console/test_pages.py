import re

import pytest

pytestmark = pytest.mark.django_db


def test_dashboard_renders_the_shell_with_navigation(user_client):
    response = user_client.get("/")

    assert response.status_code == 200
    for label in (b"Dashboard", b"Projects", b"Catalog", b"Workloads"):
        assert label in response.content
    assert b'href="/clusters/"' not in response.content  # admin-only section hidden
    assert b'name="csrf-token"' in response.content
    assert b"/static/dist/app.js" in response.content


def test_admins_see_clusters_and_audit_in_navigation(admin_client_):
    response = admin_client_.get("/")

    assert b'href="/clusters/"' in response.content and b'href="/audit/"' in response.content


def test_404_page_says_what_was_not_found(user_client):
    response = user_client.get("/projects/no-such-project/")

    assert response.status_code == 404
    assert b"not found" in response.content.lower()


def test_catalog_lists_all_eight_kinds(user_client):
    response = user_client.get("/workloads/catalog/")

    for kind in (
        b"PinPod",
        b"PinApp",
        b"PinScaler",
        b"PinterestService",
        b"PinterestJobSet",
        b"PinterestCronJob",
        b"PinterestDaemon",
        b"PinterestTrainingJob",
    ):
        assert kind in response.content


def test_token_page_shows_the_secret_once(user_client):
    created = user_client.post("/tokens/", {"name": "cli"})  # post/redirect/get: the secret waits for one GET
    shown = user_client.get(created["Location"])
    again = user_client.get("/tokens/")

    assert created.status_code == 302 and b"pct_" in shown.content
    assert b"pct_" not in again.content and b"cli" in again.content


def test_token_page_rejects_bad_expiry_inline(user_client):
    response = user_client.post("/tokens/", {"name": "cli", "days": "0"})

    assert response.status_code == 400
    assert b"invalid-feedback" in response.content


def test_static_assets_are_served_by_the_app(client):
    response = client.get("/static/dist/app.js")

    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert b"htmx" in body


def test_every_page_links_the_favicon_and_favicon_ico_leads_to_it(user_client, client):
    page = user_client.get("/").content.decode()
    old_style = client.get("/favicon.ico")  # asked by browsers on documents that link no icon

    assert '<link rel="icon" href="/static/dist/favicon.svg" type="image/svg+xml">' in page
    assert old_style.status_code == 301 and old_style["Location"] == "/static/dist/favicon.svg"
    icon = client.get("/static/dist/favicon.svg")
    body = b"".join(icon.streaming_content) if icon.streaming else icon.content
    assert icon.status_code == 200 and body.startswith(b"<svg")


def test_the_api_docs_lead_back_to_the_portal(user_client):
    page = user_client.get("/api/docs/").content.decode()

    assert '<nav aria-label="Portal" data-portal-bar' in page
    assert re.search(r'<a href="/"[^>]*>&larr; PinConsole</a>', page) and 'href="/tokens/"' in page
    assert 'id="swagger-ui"' in page  # the docs themselves still there


def test_token_page_revokes_only_my_tokens(user_client, user, other_user):
    from accounts import services
    from accounts.models import ApiToken

    mine, _ = services.create_api_token(user=user, name="cli", days=None)
    theirs, _ = services.create_api_token(user=other_user, name="cli", days=None)

    assert user_client.post(f"/tokens/{theirs.pk}/revoke/").status_code == 404
    assert user_client.post(f"/tokens/{mine.pk}/revoke/").status_code == 302
    assert ApiToken.objects.get(pk=mine.pk).revoked_at and not ApiToken.objects.get(pk=theirs.pk).revoked_at
