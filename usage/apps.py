from django.apps import AppConfig


class UsageConfig(AppConfig):
    name = "usage"
    verbose_name = "Usage and chargeback"
