"""Sign-in (SSO button when configured; username/password only with the dev setting on), sign-out, API tokens."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login as auth_login
from django.contrib.auth import logout as auth_logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect, render, resolve_url
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.http import require_POST

from accounts import services
from accounts.live_access import access_changed
from accounts.models import ApiToken
from base.errors import ServiceError, add_to_form


def _safe_next(request: HttpRequest) -> str:
    nxt = request.POST.get("next") or request.GET.get("next") or ""
    if nxt and url_has_allowed_host_and_scheme(
        nxt, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return nxt
    return settings.LOGIN_REDIRECT_URL


@never_cache
@csrf_protect
def login_view(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect(_safe_next(request))
    form = AuthenticationForm(request, data=request.POST or None)
    if request.method == "POST":
        if not settings.DEV_LOGIN_ENABLED:
            return HttpResponseForbidden("Password sign-in is disabled; use single sign-on.", content_type="text/plain")
        username, address = request.POST.get("username", ""), request.META.get("REMOTE_ADDR", "")
        wait = services.sign_in_wait(username, address)
        if wait:  # not even checked: a guess past the limit tells nothing
            unbound = AuthenticationForm(request, initial={"username": username})
            context = {"form": unbound, "next": _safe_next(request), "throttled": services.throttled_message(wait)}
            response = render(request, "registration/login.html", context, status=429)
            response["Retry-After"] = str(wait)
            return response
        if form.is_valid():
            user = form.get_user()
            auth_login(request, user)
            services.record_sign_in(user, how="Dev password login")
            return redirect(_safe_next(request))
        services.record_failed_sign_in(username, address)
    return render(request, "registration/login.html", {"form": form, "next": _safe_next(request)})


@require_POST
def logout_view(request: HttpRequest) -> HttpResponse:
    user_id, session_key = request.user.pk, request.session.session_key or ""
    id_token = request.session.get("oidc_id_token")  # stored at OIDC sign-in when an IdP logout is configured
    if request.user.is_authenticated:
        services.record_sign_out(request.user)
    auth_logout(request)
    access_changed([user_id], reason="signed out", session_key=session_key)  # closes this session's sockets
    if id_token and settings.OIDC_OP_LOGOUT_ENDPOINT:
        return redirect(idp_logout_url(request, id_token))
    messages.info(request, "You are signed out.")
    return redirect(settings.LOGOUT_REDIRECT_URL)


def idp_logout_url(request: HttpRequest, id_token: str) -> str:
    """OpenID Connect RP-Initiated Logout 1.0: end the provider's session too, then come back to sign-in."""
    query = urlencode(
        {
            "id_token_hint": id_token,
            "client_id": settings.OIDC_RP_CLIENT_ID,
            "post_logout_redirect_uri": request.build_absolute_uri(resolve_url(settings.LOGOUT_REDIRECT_URL)),
        }
    )
    endpoint = settings.OIDC_OP_LOGOUT_ENDPOINT
    return f"{endpoint}{'&' if '?' in endpoint else '?'}{query}"


class TokenForm(forms.Form):
    name = forms.CharField(max_length=80, help_text="What uses this token, e.g. 'laptop CLI'.")
    days = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=services.max_token_days(),
        help_text=f"Expiry in days (empty: {services.default_token_days()}; at most {services.max_token_days()}).",
    )
    scope = forms.ChoiceField(
        choices=[("write", "Read and write"), ("read", "Read only (logs, lists)")],
        initial="write",
        required=False,
        help_text="A read-only token cannot change anything or open a shell.",
    )


NEW_TOKEN = "tokens:new"  # session key: the token just created and its secret, until the token page shows it


@never_cache  # no-store: the page with the secret is never kept by the browser or a proxy, nor is any other answer
@login_required
def token_list(request: HttpRequest) -> HttpResponse:
    """GET: the tokens, and once after creating one, its secret. POST: create one, then post/redirect/get (a
    reload shows the list again and creates nothing); the secret waits in the session for that one GET."""
    if request.method != "POST":
        return _token_page(request, TokenForm(), new_secret=_new_secret(request))
    form = TokenForm(request.POST)
    status = 400
    if form.is_valid():
        try:
            token, secret = services.create_api_token(
                user=request.user,
                name=form.cleaned_data["name"],
                days=form.cleaned_data.get("days"),
                scope=form.cleaned_data["scope"] or "write",
            )
        except ServiceError as exc:
            add_to_form(form, exc)
            status = exc.status
        else:
            request.session[NEW_TOKEN] = {"id": token.pk, "secret": secret}
            messages.success(request, f"Token {token.name} created. Copy it now: it will not be shown again.")
            return redirect("tokens:list")
    return _token_page(request, form, status=status)


def _new_secret(request: HttpRequest) -> str | None:
    """The secret of the token this session just created, taken out of the session as it is shown (a GET only:
    a HEAD shows nothing)."""
    if request.method != "GET":
        return None
    new = request.session.pop(NEW_TOKEN, None)
    if not new or not ApiToken.objects.filter(pk=new["id"], user=request.user).exists():
        return None
    return str(new["secret"])


def _token_page(
    request: HttpRequest, form: TokenForm, *, new_secret: str | None = None, status: int = 200
) -> HttpResponse:
    tokens = ApiToken.objects.filter(user=request.user)
    context = {"form": form, "tokens": tokens, "new_secret": new_secret}
    return render(request, "accounts/tokens.html", context, status=status)


@login_required
@require_POST
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    token = services.revoke_api_token(user=request.user, token_id=pk)  # NotFound (404) for others' tokens
    messages.info(request, f"Token {token.name} revoked.")
    return redirect("tokens:list")
