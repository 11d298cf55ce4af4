from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    name = "console"
    verbose_name = "PinConsole"

    def ready(self) -> None:
        from console.api import schema  # noqa: F401 - registers the OpenAPI auth extension
