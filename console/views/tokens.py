from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from console import services
from console.models import ApiToken


class TokenForm(forms.Form):
    name = forms.CharField(max_length=80, help_text="What uses this token, e.g. 'laptop CLI'.")
    days = forms.IntegerField(required=False, min_value=1, max_value=services.MAX_TOKEN_DAYS,
                              help_text="Expiry in days; leave empty for a token that does not expire.")


@login_required
def token_list(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None)
    new_secret = None
    if request.method == "POST" and form.is_valid():
        try:
            token, new_secret = services.create_api_token(
                user=request.user, name=form.cleaned_data["name"], days=form.cleaned_data.get("days")
            )
            messages.success(request, f"Token {token.name} created. Copy it now: it will not be shown again.")
            form = TokenForm()
        except services.TokenError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
    tokens = ApiToken.objects.filter(user=request.user)
    return render(request, "console/tokens.html", {"form": form, "tokens": tokens, "new_secret": new_secret})


@login_required
@require_POST
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    services.revoke_api_token(user=request.user, token_id=token.pk)
    messages.info(request, f"Token {token.name} revoked.")
    return redirect("tokens:list")
