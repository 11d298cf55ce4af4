"""Path converters shared by the URL confs.

``id``: a database id in a path, digits only and at most 18 of them (every such number fits a 64-bit integer).
Django's ``int`` takes any length, and a longer one reached the database: SQLite refuses to bind an integer over
64 bits (``OverflowError``, a 500) where a 404 belongs. A longer number matches no route: the router's 404.
"""

from __future__ import annotations

from django.urls import register_converter


class IdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
