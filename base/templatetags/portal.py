from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def get_item(mapping: Any, key: str) -> Any:
    """`{{ labels|get_item:"topology.kubernetes.io/zone" }}` for keys with dots and slashes."""
    if isinstance(mapping, dict):
        return mapping.get(key, "")
    return ""
