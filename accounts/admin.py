"""Tokens in the Django admin: read-only (create and revoke go through the token pages and API)."""

from __future__ import annotations

from django.contrib import admin

from accounts.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "key_id", "created_at", "expires_at", "last_used_at", "revoked_at")
    readonly_fields = ("digest", "key_id")
    search_fields = ("name", "user__username", "key_id")
