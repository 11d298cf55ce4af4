"""The policy as a form (the project page's policy section and the defaults page): what the fields mean as a
``pincompute.policy`` document, and where each of the service's field errors goes."""

from __future__ import annotations

import re
from typing import Any

from django import forms

from base.errors import ServiceError, add_to_form
from pincompute.errors import FieldError
from pincompute.kinds import KINDS
from pincompute.tiers import Tier

KIND_CHOICES = [(k, k) for k in sorted(KINDS)]
TIER_CHOICES = [(t.value, t.value) for t in Tier]
_CAPS = {"cpu": "max_cpu", "memory": "max_memory", "gpu": "max_gpu"}


class PolicyForm(forms.Form):
    allowedKinds = forms.MultipleChoiceField(
        label="Allowed kinds",
        choices=KIND_CHOICES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="All checked: every kind, including kinds added later.",
    )
    allowedTiers = forms.MultipleChoiceField(
        label="Allowed tiers", choices=TIER_CHOICES, required=False, widget=forms.CheckboxSelectMultiple
    )
    imageRegistries = forms.CharField(
        label="Image registries",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One registry host or path prefix per line (ghcr.io/acme); an image without a registry is "
        "docker.io's. Empty: any registry.",
    )
    max_cpu = forms.CharField(label="Max CPU per container", required=False, help_text="e.g. 4 or 500m; empty: none")
    max_memory = forms.CharField(label="Max memory per container", required=False, help_text="e.g. 8Gi")
    max_gpu = forms.CharField(label="Max GPUs per container", required=False)
    sidecarExec = forms.BooleanField(label="A sidecar-exec grant opens the platform's sidecars", required=False)
    notifyOnShell = forms.BooleanField(label="Tell the owners when a shell is opened", required=False)

    def document(self) -> dict[str, Any]:
        """The document the service judges (call after ``is_valid``): all kinds or tiers checked is no restriction."""
        data = self.cleaned_data
        kinds, tiers = data.get("allowedKinds") or [], data.get("allowedTiers") or []
        registries = [line.strip() for line in (data.get("imageRegistries") or "").splitlines() if line.strip()]
        caps = {name: data[field].strip() for name, field in _CAPS.items() if (data.get(field) or "").strip()}
        return {
            "allowedKinds": None if len(kinds) == len(KIND_CHOICES) else kinds,
            "allowedTiers": None if len(tiers) == len(TIER_CHOICES) else tiers,
            "imageRegistries": registries or None,
            "maxPerContainer": caps or None,
            "sidecarExec": bool(data.get("sidecarExec")),
            "notifyOnShell": bool(data.get("notifyOnShell")),
        }

    def add_service_errors(self, exc: ServiceError) -> None:
        """Each error beside the field it names (``imageRegistries[2]`` beside the registries)."""
        fields = [FieldError(_field_of(e.path), e.message) for e in exc.fields]
        add_to_form(self, type(exc)(exc.message, fields=fields))


def initial_of(document: dict[str, Any]) -> dict[str, Any]:
    """The form's initial values for a policy document."""
    caps = document.get("maxPerContainer") or {}
    kinds, tiers = document.get("allowedKinds"), document.get("allowedTiers")
    return {
        "allowedKinds": [k for k, _ in KIND_CHOICES] if kinds is None else kinds,  # unrestricted: all checked
        "allowedTiers": [t for t, _ in TIER_CHOICES] if tiers is None else tiers,
        "imageRegistries": "\n".join(document.get("imageRegistries") or []),
        **{field: caps.get(name, "") for name, field in _CAPS.items()},
        "sidecarExec": document.get("sidecarExec", True),
        "notifyOnShell": document.get("notifyOnShell", False),
    }


def _field_of(path: str) -> str:
    head = re.sub(r"\[\d+\]$", "", path)
    if head.startswith("maxPerContainer."):
        return _CAPS.get(head.removeprefix("maxPerContainer."), "")
    return head
