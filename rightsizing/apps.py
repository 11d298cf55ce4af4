from django.apps import AppConfig


class RightsizingConfig(AppConfig):
    name = "rightsizing"
    verbose_name = "Right-sizing"
