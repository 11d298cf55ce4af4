from django.apps import AppConfig


class ProjectsConfig(AppConfig):
    name = "projects"
    verbose_name = "Projects and quota"

    def ready(self) -> None:
        # The one allowed inversion (clusters.hooks, docs/architecture.md): the cluster registry may not import
        # projects, yet a pool may not shrink below what the region has granted, and a newly registered cluster
        # gets every existing project at once.
        from base.queueing import enqueue
        from clusters.hooks import ProjectHooks, wire
        from projects.access_requests import notices
        from projects.access_requests import tasks as access_tasks  # noqa: F401 (registers the expiry beat task)
        from projects.grants import tier_grant_totals
        from projects.tasks import provision_new_cluster

        notices.connect()  # access requests and grants tell the people they concern
        wire(
            ProjectHooks(
                grant_totals=tier_grant_totals,
                cluster_registered=lambda cluster_id: enqueue(provision_new_cluster, cluster_id),
            )
        )
