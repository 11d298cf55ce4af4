"""The terminal: a pod exec with a TTY behind the browser's xterm.js (or ``pincompute exec -it``).

- ``consumer``: the exec websocket (``/ws/exec/...``): idle and maximum time, input bounds, recording
- ``commands``: the fixed list of shells a client may pick by name
- ``recording``: the asciicast transcript kept in memory (saved by ``debugging.services.save_recording``)

The exec client itself (``debugging.kubeexec``) is shared with file logs, so it sits at the top of the app.
"""
