"""The smallest Python hop a browser terminal could go through (a helper of ``bench/debugging.py``, not a test).

    python bench/keyrelay.py PORT KUBECONFIG CONTEXT NAMESPACE

A websocket server (the ``websockets`` library, uvloop) in a process of its own that relays one shell per connection
(``/<pod>``) to the pod through the portal's exec client (``debugging.kubeexec``), with the portal's message shapes
(``{"type": "stdin"}`` in, ``{"type": "stdout"}`` out) and nothing else: no Django, no authorization, no audit, no
session row, no re-check. Its keystroke round trip is what any Python portal adds at least: it tells how much of the
portal's figure is the hop itself.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


async def main(port: int, kubeconfig: str, context: str, namespace: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "console.settings")
    import django

    django.setup()  # kubeexec's TLS helpers read a setting
    from websockets.asyncio.server import ServerConnection, serve

    from debugging.kubeexec import ExecSession
    from devtools.localcp.nodes import api_client

    api = api_client(kubeconfig, context)

    async def relay(ws: ServerConnection) -> None:
        assert ws.request is not None
        session = ExecSession(api, namespace, ws.request.path.strip("/"), "app", ["/bin/sh"])
        await session.open()

        async def pump() -> None:
            async for item in session.output():
                if isinstance(item, str):
                    await ws.send(json.dumps({"type": "stdout", "data": item}))

        task = asyncio.create_task(pump())
        try:
            async for raw in ws:
                message = json.loads(raw)
                if message.get("type") == "stdin":
                    await session.write_stdin(message["data"])
                elif message.get("type") == "resize":
                    await session.resize(int(message["cols"]), int(message["rows"]))
        finally:
            task.cancel()
            await session.close()

    async with serve(relay, "127.0.0.1", port, compression=None):
        print("ready", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    import uvloop

    uvloop.run(main(int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]))
