"""Identity and tokens in the Django admin: read-only, with one action that goes through the service.

Users and groups come from the identity provider (groups are mirrored at every OIDC sign-in, and the
platform-admin group decides who administers the platform), so the admin only shows them. Tokens are
created on the token page and API; a platform admin may revoke anyone's token here, through
``accounts.services.revoke_api_token`` (audited with the admin as actor).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.db.models import QuerySet

from accounts import services
from accounts.models import ApiToken
from base.admin import ReadOnlyAdminMixin
from base.permissions import is_platform_admin


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("name", "user", "key_id", "created_at", "expires_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "user__username", "key_id")
    actions = ["revoke_tokens"]

    def has_revoke_permission(self, request: Any) -> bool:
        return is_platform_admin(request.user)

    @admin.action(description="Revoke selected tokens", permissions=["revoke"])
    def revoke_tokens(self, request: Any, queryset: QuerySet[ApiToken]) -> None:
        tokens = list(queryset.select_related("user"))
        for token in tokens:
            services.revoke_api_token(user=token.user, token_id=token.pk, actor=request.user)
        self.message_user(request, f"Revoked {len(tokens)} token(s).", messages.SUCCESS)


class ReadOnlyUserAdmin(ReadOnlyAdminMixin, UserAdmin):
    pass


class ReadOnlyGroupAdmin(ReadOnlyAdminMixin, GroupAdmin):
    pass


for model, model_admin in ((get_user_model(), ReadOnlyUserAdmin), (Group, ReadOnlyGroupAdmin)):
    if admin.site.is_registered(model):
        admin.site.unregister(model)
    admin.site.register(model, model_admin)
