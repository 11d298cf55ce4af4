from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Project webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from notifications.signals import project_event
        from webhooks import tasks  # noqa: F401 (registers the delivery task)
        from webhooks.dispatch import on_project_event

        project_event.connect(on_project_event, dispatch_uid="webhooks.dispatch")
