"""The notification centre: the list with its filters, mark read / all read, and the preferences form."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from base.errors import ServiceError, add_to_form
from base.htmx import is_partial, render_form, render_page
from notifications import services
from notifications.models import Event
from notifications.reads import notifications_for, projects_of

PAGE_SIZE = 50


@login_required
def notification_list(request: HttpRequest) -> HttpResponse:
    project, event = request.GET.get("project", ""), request.GET.get("event", "")
    unread = request.GET.get("unread") == "1"
    try:
        rows = notifications_for(request.user, project=project, event=event, unread=unread)
    except ServiceError:
        event = ""  # an unknown event in the address: the whole list, the filter cleared
        rows = notifications_for(request.user, project=project, unread=unread)
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "filters": {"project": project, "event": event, "unread": unread},
        "projects": projects_of(request.user),
        "events": Event.choices,
        "unread_count": services.unread_count(request.user),
    }
    return render_page(request, "notifications/list.html", "notifications/partials/list_body.html", context)


def _back(request: HttpRequest) -> HttpResponse:
    if is_partial(request):
        return notification_list(request)
    query = request.GET.urlencode()
    return redirect(f"/notifications/?{query}" if query else "/notifications/")


@require_POST
@login_required
def notification_read(request: HttpRequest, pk: int) -> HttpResponse:
    services.mark_read(pk, user=request.user)
    return _back(request)


@require_POST
@login_required
def notification_read_all(request: HttpRequest) -> HttpResponse:
    services.mark_all_read(user=request.user)
    return _back(request)


class PreferenceForm(forms.Form):
    events = forms.MultipleChoiceField(
        choices=Event.choices, required=False, widget=forms.CheckboxSelectMultiple, label="Tell me about"
    )
    in_app = forms.BooleanField(required=False, label="In the app (the bell)")
    email = forms.BooleanField(required=False, label="By email")
    digest = forms.BooleanField(required=False, label="Email once a day as a digest, not at once")


@login_required
def notification_preferences(request: HttpRequest) -> HttpResponse:
    pref = services.preferences_of(request.user)
    if request.method != "POST":
        initial = {
            "events": [e for e in Event.values if e not in pref.muted],
            "in_app": pref.in_app,
            "email": pref.email,
            "digest": pref.digest,
        }
        form = PreferenceForm(initial=initial)
        return render_page(
            request, "notifications/preferences.html", "notifications/partials/preferences_form.html", {"form": form}
        )
    form = PreferenceForm(request.POST)
    if form.is_valid():
        data = {name: form.cleaned_data[name] for name in ("in_app", "email", "digest")}
        data["muted"] = [e for e in Event.values if e not in form.cleaned_data["events"]]
        try:
            services.set_preferences(data, user=request.user)
        except ServiceError as exc:
            add_to_form(form, exc)
        else:
            messages.success(request, "Notification preferences saved.")
    return render_form(
        request,
        "notifications/preferences.html",
        "notifications/partials/preferences_form.html",
        {"form": form, "saved": not form.errors},
        form=form,
        success_url="/notifications/preferences/",
    )
