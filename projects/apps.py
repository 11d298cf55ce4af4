from django.apps import AppConfig


class ProjectsConfig(AppConfig):
    name = "projects"
    verbose_name = "Projects and quota"

    def ready(self) -> None:
        # The cluster registry may not import projects, yet a pool may not shrink below what the region
        # has granted: hand it the totals (explicit wiring, not a signal).
        from clusters.services import provide_grant_totals
        from projects.grants import tier_grant_totals

        provide_grant_totals(tier_grant_totals)
