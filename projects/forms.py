"""Forms of the project pages: shape only (text in, text out). Every rule is the services' (``projects.*``):
a form never refuses what a service would accept, so the service's message is the one shown."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.urls import reverse

from projects.grants import QuotaInput
from projects.members import KINDS, MemberInput
from projects.models import PodSecurity, ProjectRole, Tier


def _text(label: str, help_text: str = "", **attrs: Any) -> forms.CharField:
    return forms.CharField(label=label, required=False, help_text=help_text, widget=forms.TextInput(attrs=attrs))


def _choice(label: str, choices: Any, initial: str = "") -> forms.CharField:
    """A select that takes any text: an unknown value is for the service to name, not for Django."""
    return forms.CharField(label=label, required=False, initial=initial, widget=forms.Select(choices=choices))


class BasicsForm(forms.Form):
    name = _text(
        "Name",
        "Lowercase letters, digits and '-'; it becomes the namespace <code>proj-&lt;name&gt;</code> and never changes.",
        autocomplete="off",
        spellcheck="false",
    )
    display_name = _text("Display name", "Shown in the portal, e.g. Ads Ranking.")
    team = _text("Team", "The owning team (a label on the namespace).")
    cost_center = _text("Cost center", "Charged for the project's quota, e.g. CC-1042.")
    description = forms.CharField(label="Description", required=False, widget=forms.Textarea(attrs={"rows": 3}))


class EditBasicsForm(BasicsForm):
    """What owners change on the project page (the name is the namespace: it never changes)."""

    name = None  # type: ignore[assignment]


class MemberForm(forms.Form):
    kind = _choice("Kind", [(k, k.title()) for k in KINDS], "user")
    name = _text("User or group", autocomplete="off", spellcheck="false")
    role = _choice("Role", ProjectRole.choices, ProjectRole.DEVELOPER)

    def searchable(self, row: str, target: str) -> MemberForm:
        """The name field asks ``projects:lookup`` as one types; suggestions go into ``#target`` and fill
        the fields named ``<row>kind`` / ``<row>name`` when picked (static/src/js/picker.js)."""
        self.fields["name"].widget.attrs.update(
            {
                "placeholder": "Type to search users and groups",
                "hx-get": reverse("projects:lookup"),
                "hx-trigger": "input changed delay:250ms, focus",
                "hx-target": f"#{target}",
                "hx-swap": "innerHTML",
                "hx-vals": json.dumps({"row": row}),
                "hx-sync": "this:replace",
                "aria-autocomplete": "list",
            }
        )
        return self

    def member(self) -> MemberInput:
        data = self.cleaned_data
        return MemberInput(data.get("kind") or "user", data.get("name") or "", data.get("role") or "")


MemberFormSet = forms.formset_factory(MemberForm, extra=0)


class RoleForm(forms.Form):
    """One member's new role (the row's kind and name are posted beside it)."""

    role = _choice("Role", ProjectRole.choices)


class QuotaForm(forms.Form):
    """One tier's grant as Kubernetes quantities (``8``, ``500m``, ``32Gi``)."""

    cpu = _text("CPU", "cores, e.g. 8 or 500m", inputmode="decimal")
    memory = _text("Memory", "e.g. 32Gi")
    gpu = _text("GPU", "whole GPUs", inputmode="numeric")
    pods = _text("Pods", "pods at once", inputmode="numeric")

    def quota(self) -> QuotaInput:
        data = self.cleaned_data
        return QuotaInput(**{name: data.get(name, "") for name in ("cpu", "memory", "gpu", "pods")})


class QuotaChangeForm(QuotaForm):
    reason = forms.CharField(
        label="Why",
        required=False,
        widget=forms.TextInput(attrs={"placeholder": "e.g. launch of the new ranker"}),
        help_text="Read by the platform admins when the change needs approval.",
    )


class PodSecurityForm(forms.Form):
    pod_security = _choice("Pod Security level", PodSecurity.choices)


class DecisionForm(forms.Form):
    reason = forms.CharField(
        label="Reason",
        required=False,
        widget=forms.TextInput(attrs={"placeholder": "Reason (required to reject; the owners read it)"}),
    )


class ForcedDecreaseForm(QuotaForm):
    tier = _choice("Tier", Tier.choices)
    reason = forms.CharField(
        label="Why",
        required=False,
        widget=forms.TextInput(attrs={"placeholder": "e.g. the pool shrinks for maintenance"}),
        help_text="Shown to the project's owners in the audit log.",
    )
    confirm = forms.CharField(required=False, widget=forms.HiddenInput)
