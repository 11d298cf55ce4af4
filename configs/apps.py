from django.apps import AppConfig


class ConfigsConfig(AppConfig):
    name = "configs"
    verbose_name = "Project Secrets and ConfigMaps"
