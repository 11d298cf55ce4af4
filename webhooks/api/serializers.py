"""Shapes of the webhook API (the services validate)."""

from __future__ import annotations

from rest_framework import serializers

from base.api import StrictInput
from notifications.models import Event
from webhooks.models import Format


class WebhookSerializer(serializers.Serializer):
    name = serializers.CharField()
    url = serializers.CharField()
    format = serializers.ChoiceField(choices=Format.choices)
    enabled = serializers.BooleanField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=Event.choices), help_text="Its routes.")
    failures = serializers.IntegerField(help_text="Failed attempts in a row.")
    disabled_reason = serializers.CharField(allow_blank=True)
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()


class WebhookSecretSerializer(WebhookSerializer):
    secret = serializers.CharField(help_text="The signing secret: shown this once, never again.")


class WebhookCreateSerializer(StrictInput):
    name = serializers.CharField(max_length=200)
    url = serializers.CharField(max_length=2000)
    format = serializers.CharField(max_length=20, required=False)
    enabled = serializers.BooleanField(required=False)
    events = serializers.ListField(child=serializers.CharField(max_length=60), required=False, max_length=100)


class WebhookUpdateSerializer(StrictInput):
    url = serializers.CharField(max_length=2000, required=False)
    format = serializers.CharField(max_length=20, required=False)
    enabled = serializers.BooleanField(required=False)
    events = serializers.ListField(child=serializers.CharField(max_length=60), required=False, max_length=100)


class RoutesSerializer(StrictInput):
    events = serializers.ListField(child=serializers.CharField(max_length=60), max_length=100)


class AttemptSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status_code = serializers.IntegerField(allow_null=True, help_text="None when no answer came.")
    error = serializers.CharField(allow_blank=True)
    duration_ms = serializers.IntegerField()
    at = serializers.DateTimeField()


class DeliverySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    event = serializers.CharField()
    state = serializers.ChoiceField(choices=["pending", "delivered", "failed"])
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    attempts = AttemptSerializer(many=True)


class TestSentSerializer(serializers.Serializer):
    delivery = serializers.IntegerField(help_text="The test delivery's id (see deliveries).")
