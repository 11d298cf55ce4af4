"""Shapes of the notification API (the services validate)."""

from __future__ import annotations

from rest_framework import serializers

from notifications.models import Event, Notification


class NotificationSerializer(serializers.ModelSerializer[Notification]):
    project = serializers.CharField(source="project.name", allow_null=True, default=None, read_only=True)
    read = serializers.SerializerMethodField()

    class Meta:
        model = Notification
        fields = ["id", "event", "severity", "project", "text", "link", "count", "created_at", "updated_at", "read"]
        read_only_fields = fields

    def get_read(self, obj: Notification) -> bool:
        return obj.read_at is not None


class PreferenceSerializer(serializers.Serializer[object]):
    """``PUT`` changes the fields it carries; an unknown field or event name is refused naming it."""

    muted = serializers.ListField(
        child=serializers.ChoiceField(choices=Event.choices), required=False, help_text="Events you are not told."
    )
    in_app = serializers.BooleanField(required=False, help_text="Shown in the app (the bell).")
    email = serializers.BooleanField(required=False, help_text="Sent by email.")
    digest = serializers.BooleanField(required=False, help_text="Email once a day as a digest, not at once.")


class ReadAllSerializer(serializers.Serializer[object]):
    marked = serializers.IntegerField(help_text="How many notifications were unread.")
