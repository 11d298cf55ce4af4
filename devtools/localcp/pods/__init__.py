"""Confined dev pods: each kwok pod gets a private filesystem, its own logs and a sandboxed shell.

kwok's own exec runs the client's command as a child process of kwok, on the machine running it. Here
kwok itself runs in a bubblewrap jail (``jail``) whose every executable path is ``podshim``, a static
binary that hands the request to the broker (``broker``) of this cluster's pod supervisor. The broker
starts the command as uid 65534 in a per-pod bubblewrap sandbox (``podfs``): its own writable root that
lives as long as the pod, the host's ``/usr`` read-only, fresh ``/proc`` and ``/dev``, no network (own
network namespace), no host file, no credential. The supervisor (``__main__``) also watches the
member's pods (``watch``) to give each one its kwok Exec/Logs/Attach rules and its files, and writes
each pod's console log and ``/var/log/app.log`` (``pump``).
"""
