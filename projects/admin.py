from django.contrib import admin

from base.admin import AuditedModelAdmin
from projects.models import Membership, Project, TierQuota


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


class TierQuotaInline(admin.TabularInline):
    model = TierQuota
    extra = 0


@admin.register(Project)
class ProjectAdmin(AuditedModelAdmin):
    list_display = ("name", "team", "cost_center", "created_at")
    search_fields = ("name", "team", "cost_center")
    inlines = [MembershipInline, TierQuotaInline]
