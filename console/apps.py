from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class ConsoleConfig(AppConfig):
    name = "console"
    verbose_name = "PinConsole"


class PortalAdminConfig(admin_apps.AdminConfig):
    """django.contrib.admin with the portal's site (base.admin_site.PortalAdminSite: read-only for platform admins)."""

    default = False  # AdminConfig's default=True would make it console's own config too
    default_site = "base.admin_site.PortalAdminSite"
