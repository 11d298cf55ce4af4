from django.apps import AppConfig


class RobotsConfig(AppConfig):
    name = "robots"
    verbose_name = "Robot accounts"
    default_auto_field = "django.db.models.BigAutoField"
