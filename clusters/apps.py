from django.apps import AppConfig


class ClustersConfig(AppConfig):
    name = "clusters"
    verbose_name = "Cluster registry"

    def ready(self) -> None:
        from django.conf import settings

        from clusters.kube.heap import FREEZER

        FREEZER.enabled = settings.WATCH_CACHE_GC_FREEZE
