"""``/api/schema/`` rendered once per process and format.

The schema is served public, so it depends only on the code and the settings: generating and rendering it on every
request cost 0.4 s of CPU (YAML, the default format) and several seconds on a loaded machine, for the same bytes
each time. A settings change (tests) forgets what was rendered. YAML is emitted by libyaml (``LibyamlRenderer``).
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import time, timedelta
from decimal import Decimal
from typing import Any
from uuid import UUID

import yaml
from django.core.signals import setting_changed
from django.http import HttpResponse
from django.urls import get_urlconf
from django.utils import translation
from django.utils.safestring import SafeString
from drf_spectacular.renderers import (
    OpenApiJsonRenderer,
    OpenApiJsonRenderer2,
    OpenApiYamlRenderer,
    OpenApiYamlRenderer2,
)
from drf_spectacular.views import SpectacularAPIView
from rest_framework.exceptions import ErrorDetail
from rest_framework.request import Request

_Rendered = tuple[bytes, str, str]  # content, content type, content disposition
_rendered: dict[tuple[Any, ...], _Rendered] = {}


def _forget(**_: Any) -> None:
    _rendered.clear()


setting_changed.connect(_forget, dispatch_uid="base.schema_view.forget")


class _Dumper(yaml.CSafeDumper):
    """drf-spectacular's YAML dumper (no aliases; multi-line text as a block; its types as plain scalars) on libyaml's
    emitter: the schema (900 KB) in 0.25 s of CPU instead of 0.6 s."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def represent_text(self, data: str) -> yaml.ScalarNode:
        scalar = self.represent_str(data)
        scalar.style = "|" if "\n" in data else None
        return scalar

    def represent_decimal(self, data: Decimal) -> yaml.ScalarNode:
        value = f"{data:f}"  # no "!!float" tag on a fractionless decimal
        return self.represent_scalar("tag:yaml.org,2002:float" if "." in value else "tag:yaml.org,2002:int", value)


for _type, _represent in {
    str: _Dumper.represent_text,
    SafeString: _Dumper.represent_text,
    Decimal: _Dumper.represent_decimal,
    ErrorDetail: lambda dumper, data: dumper.represent_dict({"string": str(data), "code": data.code}),
    timedelta: lambda dumper, data: dumper.represent_str(str(data.total_seconds())),
    time: lambda dumper, data: dumper.represent_str(data.isoformat()),
    UUID: lambda dumper, data: dumper.represent_str(str(data)),
    OrderedDict: lambda dumper, data: dumper.represent_dict(dict(data)),
}.items():
    _Dumper.add_representer(_type, _represent)


class LibyamlRenderer(OpenApiYamlRenderer):
    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        text = yaml.dump(data, Dumper=_Dumper, default_flow_style=False, sort_keys=False, allow_unicode=True)
        return text.encode("utf-8")


class LibyamlRenderer2(LibyamlRenderer):
    media_type = OpenApiYamlRenderer2.media_type


class RenderedOnceSchemaView(SpectacularAPIView):
    renderer_classes = [LibyamlRenderer, LibyamlRenderer2, OpenApiJsonRenderer, OpenApiJsonRenderer2]

    def _get_schema_response(self, request: Request) -> HttpResponse:  # type: ignore[override]
        version = self.api_version or request.version or self._get_version_parameter(request)
        media_type = request.accepted_media_type
        key = (version, translation.get_language(), media_type, get_urlconf())
        if key not in _rendered:
            response = super()._get_schema_response(request)
            renderer = request.accepted_renderer
            context = {"request": request, "response": response, "view": self}
            content = renderer.render(response.data, media_type, context)
            content_type = f"{media_type}; charset={renderer.charset}" if renderer.charset else media_type
            _rendered[key] = (content, content_type, response["Content-Disposition"])
        content, content_type, disposition = _rendered[key]
        return HttpResponse(content, content_type=content_type, headers={"Content-Disposition": disposition})
