"""``/api/schema/`` rendered once per process and format.

The schema is served public, so it depends only on the code and the settings: generating and rendering it on every
request cost 0.4 s of CPU (YAML, the default format) and several seconds on a loaded machine, for the same bytes
each time. A settings change (tests) forgets what was rendered.
"""

from __future__ import annotations

from typing import Any

from django.core.signals import setting_changed
from django.http import HttpResponse
from django.urls import get_urlconf
from django.utils import translation
from drf_spectacular.views import SpectacularAPIView
from rest_framework.request import Request

_Rendered = tuple[bytes, str, str]  # content, content type, content disposition
_rendered: dict[tuple[Any, ...], _Rendered] = {}


def _forget(**_: Any) -> None:
    _rendered.clear()


setting_changed.connect(_forget, dispatch_uid="base.schema_view.forget")


class RenderedOnceSchemaView(SpectacularAPIView):
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
