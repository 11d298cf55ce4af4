from __future__ import annotations

import json
from typing import Any

from django import template
from django.core.serializers.json import DjangoJSONEncoder

register = template.Library()


@register.filter
def get_item(mapping: Any, key: str) -> Any:
    """`{{ labels|get_item:"topology.kubernetes.io/zone" }}` for keys with dots and slashes."""
    if isinstance(mapping, dict):
        return mapping.get(key, "")
    return ""


@register.filter
def json_attr(value: Any) -> str:
    """`data-chart="{{ chart|json_attr }}"`: the value as JSON for an HTML attribute (autoescaping quotes it).

    Not `json_script`: htmx strips every <script> from swapped-in content (allowScriptTags is off), so a chart
    whose data sat in one was empty after any partial update."""
    return json.dumps(value, separators=(",", ":"), cls=DjangoJSONEncoder)
