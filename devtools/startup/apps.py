from django.apps import AppConfig


class StartupConfig(AppConfig):
    name = "devtools.startup"
    label = "devtools_startup"
    verbose_name = "Dev command progress"
