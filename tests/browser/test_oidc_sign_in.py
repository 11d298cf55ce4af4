"""Sign in through the real OIDC redirect flow: Chromium -> portal -> dex (TLS) -> portal callback."""

import pytest

from base.models import AuditEvent

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _sign_in_with_sso(page, live_server, email: str) -> None:
    page.goto(f"{live_server.url}/login/")
    page.get_by_role("link", name="Sign in with SSO").click()
    page.wait_for_url("**/dex/auth/**")
    page.fill("input[name=login]", email)
    page.fill("input[name=password]", "correct-horse")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")


def test_sso_sign_in_lands_on_the_dashboard_with_groups_mapped(
    page, live_server, oidc_provider, screenshot_dir, django_user_model
):
    _sign_in_with_sso(page, live_server, "alice@example.com")

    assert page.locator("h1.page-title").inner_text().startswith("Welcome")
    page.screenshot(path=str(screenshot_dir / "dashboard-after-sso.png"), full_page=True)
    alice = django_user_model.objects.get(email="alice@example.com")
    assert list(alice.groups.values_list("name", flat=True)) == ["devs"]
    assert page.locator('a[href="/audit/"]').count() == 0
    assert AuditEvent.objects.filter(action="user.create", actor=alice).exists()


def test_sso_admin_group_grants_the_admin_sections(page, live_server, oidc_provider):
    _sign_in_with_sso(page, live_server, "root@example.com")

    assert page.locator('a[href="/clusters/"]').count() >= 1
    page.goto(f"{live_server.url}/audit/")
    assert page.locator("h1.page-title").inner_text() == "Audit log"


def test_sign_out_ends_the_session(page, live_server, oidc_provider):
    _sign_in_with_sso(page, live_server, "alice@example.com")

    page.locator("button.dropdown-toggle[data-bs-toggle=dropdown]").first.click()
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(f"{live_server.url}/login/")
    page.goto(f"{live_server.url}/")
    assert "/login/" in page.url


def test_an_account_with_the_same_email_is_never_taken_over(page, live_server, oidc_provider, django_user_model):
    """A local superuser shares alice's address: signing in as alice at the IdP gives a new account, not that one."""
    local = django_user_model.objects.create_superuser("alice", "alice@example.com", "pw-Local-1234")

    _sign_in_with_sso(page, live_server, "alice@example.com")

    signed_in = django_user_model.objects.get(oidc_identities__isnull=False)
    assert signed_in.pk != local.pk and signed_in.username == "alice@example.com"
    assert not signed_in.is_superuser and not signed_in.is_staff
    assert signed_in.oidc_identities.get().issuer.startswith("https://")
    page.goto(f"{live_server.url}/admin/")
    assert page.locator("body").inner_text().strip() == "The admin is for platform admins."


def test_a_provider_that_refuses_the_code_exchange_is_a_failed_sign_in_not_a_500(
    page, live_server, oidc_provider, settings, django_user_model
):
    """A wrong client secret: dex signs the user in, then refuses the portal's code exchange (401)."""
    settings.OIDC_RP_CLIENT_SECRET = "not-the-secret"
    page.goto(f"{live_server.url}/login/")
    page.get_by_role("link", name="Sign in with SSO").click()
    page.wait_for_url("**/dex/auth/**")
    page.fill("input[name=login]", "alice@example.com")
    page.fill("input[name=password]", "correct-horse")
    with page.expect_response(lambda r: "/oidc/callback/" in r.url) as callback:
        page.click("button[type=submit]")
    page.wait_for_url("**/login/**")

    assert callback.value.status == 302
    assert "Sign-in failed: the identity provider answered 401" in page.content()
    assert not django_user_model.objects.filter(email="alice@example.com").exists()
