from django.apps import AppConfig


class DebuggingConfig(AppConfig):
    name = "debugging"
    verbose_name = "Live debugging"
