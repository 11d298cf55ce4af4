from django.apps import AppConfig


class WorkloadsConfig(AppConfig):
    name = "workloads"
    verbose_name = "Workloads"
