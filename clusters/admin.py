from django import forms
from django.contrib import admin
from django.db import models

from base.admin import AuditedModelAdmin
from clusters.models import Cluster, ClusterPool


class ClusterPoolInline(admin.TabularInline):
    model = ClusterPool
    extra = 0


@admin.register(Cluster)
class ClusterAdmin(AuditedModelAdmin):
    list_display = ("name", "role", "region", "zone", "schedulable", "healthy", "version", "last_probe_at")
    list_filter = ("role", "region", "zone", "schedulable", "healthy")
    search_fields = ("name",)
    readonly_fields = ("healthy", "last_probe_at", "last_error", "version")
    inlines = [ClusterPoolInline]
    formfield_overrides = {models.URLField: {"form_class": forms.URLField, "assume_scheme": "https"}}
