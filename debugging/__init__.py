"""Live debugging: browser terminals (``shell/``) and live log streams (``logs/``).

What both share sits at the top: who may debug which pod (``authz``), what an open socket may keep doing
(``policy``), the websocket base that refuses, admits, re-checks and ends (``socketbase``, with ``accesshub`` and
``refusals``), API tokens on the handshake (``tokens``), the pod exec client (``kubeexec``) and how a stream from an
apiserver fails (``upstream``), the session rows (``models``) and every write (``services``); the entry points are
``routing`` (websockets), ``urls`` with ``views/`` (pages) and ``api/`` (DRF). ``shell`` and ``logs`` do not import
each other, and nothing at the top imports them but the entry points (contracts in ``pyproject.toml``).
"""
