"""The shapes of the Secrets and ConfigMaps API (shape only: ``configs.services`` validates names, keys and size)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from base.api import StrictInput
from pincompute.configs import DATA_MAX_BYTES, ConfigSummary

DATA_HELP = f"Keys and their values (UTF-8 text); at most {DATA_MAX_BYTES} bytes in all, keys and values counted."


class KeyStateSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    set = serializers.BooleanField(help_text="Whether the value is non-empty; a Secret's value is never shown.")


class ConfigSummarySerializer(serializers.Serializer[Any]):
    """A Secret or ConfigMap as shown: its keys (set or unset), version and last writer, never a Secret's values.
    A viewer listing Secrets sees the names only (the other fields are absent)."""

    name = serializers.CharField()
    keys = KeyStateSerializer(many=True, required=False)
    version = serializers.IntegerField(required=False, help_text="One more at each change; send it back to edit.")
    changedBy = serializers.CharField(required=False, help_text="Who created or changed it last.")
    created = serializers.CharField(required=False)
    data = serializers.DictField(
        child=serializers.CharField(allow_blank=True),
        required=False,
        help_text="A ConfigMap's values (not a Secret's).",
    )


def summary_body(item: ConfigSummary, *, details: bool, data: dict[str, str] | None = None) -> dict[str, Any]:
    if not details:
        return {"name": item.name}
    body: dict[str, Any] = {
        "name": item.name,
        "keys": [{"name": k.name, "set": k.set} for k in item.keys],
        "version": item.version,
        "changedBy": item.changed_by,
        "created": item.created,
    }
    if data is not None:
        body["data"] = data
    return body


class CreateSerializer(StrictInput):
    name = serializers.CharField(max_length=253, help_text="A DNS-1123 subdomain: lower case, digits, '-' and '.'.")
    data = serializers.DictField(
        child=serializers.CharField(allow_blank=True, trim_whitespace=False), help_text=DATA_HELP
    )


class UpdateSerializer(StrictInput):
    data = serializers.DictField(
        child=serializers.CharField(allow_blank=True, trim_whitespace=False),
        required=False,
        default=dict,
        help_text="Keys to set (added or replaced); the other keys keep their values. " + DATA_HELP,
    )
    remove = serializers.ListField(
        child=serializers.CharField(max_length=253), required=False, default=list, help_text="Keys to remove."
    )
    version = serializers.IntegerField(
        required=False, min_value=1, help_text="The version you read: a change since then is a 409."
    )
