"""Clusters in the Django admin: read-only. Attributes and pools are edited on the cluster's portal page
(validated and audited by ``clusters.services``); registration is ``manage.py import_clusters``."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db import models
from django.urls import reverse
from django.utils.html import format_html

from base.admin import ReadOnlyAdminMixin
from clusters.models import Cluster, ClusterPool


class ClusterPoolInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = ClusterPool
    extra = 0


@admin.register(Cluster)
class ClusterAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "name",
        "role",
        "region",
        "zone",
        "schedulable",
        "healthy",
        "version",
        "last_probe_at",
        "portal_page",
    )
    list_filter = ("role", "region", "zone", "schedulable", "healthy")
    search_fields = ("name",)
    inlines = [ClusterPoolInline]
    formfield_overrides = {models.URLField: {"form_class": forms.URLField, "assume_scheme": "https"}}

    def view_on_site(self, obj: Cluster) -> str:
        return reverse("clusters:detail", args=[obj.name])

    @admin.display(description="Edit")
    def portal_page(self, obj: Cluster) -> str:
        return format_html('<a href="{}">attributes and pools</a>', self.view_on_site(obj))
