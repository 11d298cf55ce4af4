"""One static-file index per test process instead of one per test client.

Django's test ``Client`` builds a new handler, and so a new middleware chain, for every client instance. WhiteNoise's
middleware indexes every static file the finders list when it is built (``WHITENOISE_USE_FINDERS``, DEBUG off): about
200 files, a ``stat`` and a headers dict each, 37 ms on a quiet core. The suite makes thousands of clients, so a
profile of the authorization matrix spent 35 of its 55 s there. A process serving the portal builds the chain once,
so this cost is the tests' alone. The index is shared here between middleware instances whose settings give the same
one; the middleware, its headers and the files it serves are unchanged (``tests/devtools/test_static_index.py``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from whitenoise.middleware import WhiteNoiseMiddleware

_indexes: dict[str, dict[str, Any]] = {}
_build = WhiteNoiseMiddleware.add_files_from_finders


def _key() -> str:
    """Every setting the finders' index depends on: where files are found and the headers each is served with."""
    names = sorted(n for n in dir(settings) if n.startswith("WHITENOISE_"))
    names += ["DEBUG", "STATIC_URL", "FORCE_SCRIPT_NAME", "STATICFILES_DIRS", "STATICFILES_FINDERS", "INSTALLED_APPS"]
    return repr([(name, getattr(settings, name, None)) for name in names])


def _add_files_from_finders(self: WhiteNoiseMiddleware) -> None:
    key = _key()
    index = _indexes.get(key)
    if index is None:
        before = dict(self.files)
        _build(self)
        index = {url: found for url, found in self.files.items() if before.get(url) is not found}
        _indexes[key] = index
        return
    self.files.update(index)  # as the build does: a finder's file replaces STATIC_ROOT's of the same URL


def share() -> None:
    WhiteNoiseMiddleware.add_files_from_finders = _add_files_from_finders  # type: ignore[method-assign]
