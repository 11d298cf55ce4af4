"""The project's webhooks page (owners and platform admins): the hooks, adding one (its secret shown once), and per
hook its routes and settings, a test send, removal and the delivery log."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from base.errors import Conflict, Invalid, add_to_form
from base.htmx import is_partial
from notifications.models import Event
from projects.access import visible_project
from projects.models import Project
from webhooks import services
from webhooks.models import Format, Webhook
from webhooks.reads import recent_deliveries

DELIVERIES_SHOWN = 50


class WebhookForm(forms.Form):
    url = forms.CharField(max_length=500, label="URL", help_text="Where the events are POSTed (http or https).")
    format = forms.ChoiceField(choices=Format.choices, initial=Format.GENERIC)
    enabled = forms.BooleanField(required=False, initial=True)
    events = forms.MultipleChoiceField(
        choices=Event.choices, required=False, widget=forms.CheckboxSelectMultiple, label="Events sent to it"
    )


class NewWebhookForm(WebhookForm):
    name = forms.CharField(max_length=40, help_text="e.g. team-slack")
    field_order = ["name", "url", "format", "enabled", "events"]


def _data(form: WebhookForm) -> dict[str, Any]:
    return {name: form.cleaned_data[name] for name in ("url", "format", "enabled", "events")}


@login_required
@require_http_methods(["GET", "POST"])
def page(request: HttpRequest, project: str) -> HttpResponse:
    found = visible_project(request.user, project)
    hooks = services.list_webhooks(found, actor=request.user)  # owners only, before the form is read
    form = NewWebhookForm(request.POST or None)
    context: dict[str, Any] = {"project": found, "hooks": hooks, "form": form}
    if request.method == "POST":
        if form.is_valid():
            try:
                hook, secret = services.create_webhook(
                    found, name=form.cleaned_data["name"], data=_data(form), actor=request.user
                )
            except (Invalid, Conflict) as exc:
                add_to_form(form, exc)
            else:
                context |= {"hooks": services.list_webhooks(found, actor=request.user), "form": NewWebhookForm(),
                            "secret": secret, "secret_of": hook.name}  # fmt: skip
                return render(request, "webhooks/page.html", context)
        return render(request, "webhooks/page.html", context, status=400)
    return render(request, "webhooks/page.html", context)


def _detail(request: HttpRequest, found: Project, hook: Webhook, form: WebhookForm, status: int = 200) -> HttpResponse:
    context = {"project": found, "hook": hook, "form": form, "deliveries": recent_deliveries(hook, DELIVERIES_SHOWN)}
    return render(request, "webhooks/detail.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def detail(request: HttpRequest, project: str, name: str) -> HttpResponse:
    found = visible_project(request.user, project)
    hook = services.find_webhook(found, name, actor=request.user)
    if request.method == "GET":
        initial = {"url": hook.url, "format": hook.format, "enabled": hook.enabled, "events": hook.events}
        return _detail(request, found, hook, WebhookForm(initial=initial))
    form = WebhookForm(request.POST)
    if form.is_valid():
        try:
            services.update_webhook(found, name, data=_data(form), actor=request.user)
        except Invalid as exc:
            add_to_form(form, exc)
        else:
            messages.success(request, f"Webhook {name} saved.")
            return redirect(reverse("webhooks:detail", args=[found.name, name]))
    return _detail(request, found, hook, form, status=400)


@login_required
@require_POST
def test_send(request: HttpRequest, project: str, name: str) -> HttpResponse:
    found = visible_project(request.user, project)
    services.send_test(found, name, actor=request.user)
    messages.success(request, f"A test event was queued for {name}; its attempts show in the log below.")
    return redirect(reverse("webhooks:detail", args=[found.name, name]))


@login_required
@require_POST
def delete(request: HttpRequest, project: str, name: str) -> HttpResponse:
    found = visible_project(request.user, project)
    services.delete_webhook(found, name, actor=request.user)
    messages.success(request, f"Webhook {name} removed.")
    url = reverse("webhooks:page", args=[found.name])
    if is_partial(request):  # the hook's page is gone: htmx loads the list as a whole page
        return HttpResponse(status=204, headers={"HX-Redirect": url})
    return redirect(url)
