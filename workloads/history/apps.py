from django.apps import AppConfig


class HistoryConfig(AppConfig):
    name = "workloads.history"
    label = "history"
    verbose_name = "Workload history"
