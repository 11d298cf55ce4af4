"""Sign-in page: SSO button always (when configured); username/password only with the dev setting on."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login as auth_login
from django.contrib.auth import logout as auth_logout
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.http import require_POST

from console import audit


def _safe_next(request: HttpRequest) -> str:
    nxt = request.POST.get("next") or request.GET.get("next") or ""
    if nxt and url_has_allowed_host_and_scheme(nxt, allowed_hosts={request.get_host()},
                                               require_https=request.is_secure()):
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
            return HttpResponseForbidden(
                "Password sign-in is disabled; use single sign-on.", content_type="text/plain"
            )
        if form.is_valid():
            user = form.get_user()
            auth_login(request, user)
            audit.record("user.login", actor=user, target_kind="User", target_name=user.get_username(),
                         summary="Dev password login")
            return redirect(_safe_next(request))
    return render(request, "registration/login.html", {"form": form, "next": _safe_next(request)})


@require_POST
def logout_view(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        audit.record("user.logout", actor=request.user, target_kind="User", target_name=request.user.get_username())
    auth_logout(request)
    messages.info(request, "You are signed out.")
    return redirect(settings.LOGOUT_REDIRECT_URL)
