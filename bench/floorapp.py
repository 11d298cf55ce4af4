"""The least any Python ASGI server can do for a page of 100 pods (a helper of ``bench/api_floor.py``, not a test).

    python -m uvicorn --app-dir bench floorapp:app --port PORT

Every request gets the same prebuilt body: the pods API's documented example pod 100 times (a page as the portal
serves it, ~70 KB). No Django, no authentication, no lookup, no encoding per request: uvicorn and one ``send``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "console.settings")
import django

django.setup()  # the example lives in the API module
from workloads.api.pods import EXAMPLE_POD  # noqa: E402

NEXT = "http://127.0.0.1/api/v1/projects/floor/pods/?cursor=member-a%2Fweb-local-1a-7d9f-abcde&limit=100"
BODY = json.dumps({"next": NEXT, "problems": [], "results": [EXAMPLE_POD] * 100}, separators=(",", ":")).encode()
HEADERS = [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())]


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BODY})
