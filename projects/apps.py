from django.apps import AppConfig


class ProjectsConfig(AppConfig):
    name = "projects"
    verbose_name = "Projects and quota"

    def ready(self) -> None:
        # The cluster registry may not import projects, yet a pool may not shrink below what the region
        # has granted: hand it the totals (explicit wiring, not a signal).
        from base.queueing import enqueue
        from clusters.services import on_cluster_registered, provide_grant_totals
        from projects.grants import tier_grant_totals
        from projects.tasks import provision_new_cluster

        provide_grant_totals(tier_grant_totals)
        # ... and a newly registered cluster gets every existing project at once.
        on_cluster_registered(lambda cluster_id: enqueue(provision_new_cluster, cluster_id))
