"""``pincompute debug POD -p PROJECT --cluster C [-c TARGET] [--image IMAGE]``: a debug container in a pod, then a
shell in it, as ``kubectl debug -it --target``: for a container that crash-loops or has no shell.

The portal starts an ephemeral container beside ``TARGET`` (default: the pod's first own container) from an image the
platform allows (default: its first); this waits (at most ``--timeout`` seconds) until it runs, then opens its shell
with ``exec``'s own streaming (a terminal when stdin is one; else stdin is the shell's input). The container stays in
the pod, ended, until the pod goes (an ephemeral container cannot be removed); ``exec -c NAME`` opens it again.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any, BinaryIO, TextIO

from pinconsole_sdk.client import Client
from pinconsole_sdk.errors import ConfigError, ConflictError

STILL_WAITING = 5  # the CLI's "unavailable" exit code
POLL_SECONDS = 0.5
OpenShell = Callable[[Client, argparse.Namespace, TextIO, BinaryIO], int]


def add_parser(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    debug = sub.add_parser("debug", parents=common, help="a debug container beside a pod's container, and its shell")
    debug.add_argument("pod")
    debug.add_argument("--cluster", required=True, help="the member cluster the pod runs on")
    debug.add_argument("-c", "--container", help="the container to debug (default: the pod's first own container)")
    debug.add_argument("--image", help="an image the platform allows for debugging (default: its first)")


def cmd_debug(
    client: Client,
    args: argparse.Namespace,
    out: TextIO,
    inp: BinaryIO,
    *,
    open_shell: OpenShell,
    err: TextIO | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    err = err or sys.stderr
    if not args.project:
        raise ConfigError("a project is needed: -p PROJECT")
    debug = client.start_debug_container(
        args.project, args.cluster, args.pod, container=args.container, image=args.image
    )
    err.write(f"Starting debug container {debug.name} ({debug.image}) beside {debug.target} in {args.pod}...\n")
    deadline = clock() + args.timeout
    while debug.state == "waiting":
        if clock() >= deadline:
            err.write(
                f"error: {debug.name} is still waiting ({debug.reason}) after {args.timeout:g} s; once it runs: "
                f"pincompute exec -it {args.pod} -p {args.project} --cluster {args.cluster} -c {debug.name}\n"
            )
            return STILL_WAITING
        sleep(POLL_SECONDS)
        debug = client.debug_container(args.project, args.cluster, args.pod, debug.name)
    if debug.state != "running":
        ended = f"{debug.reason or debug.state}" + (f", exit {debug.exit_code}" if debug.exit_code is not None else "")
        raise ConflictError(f"debug container {debug.name} ended before its shell opened ({ended})", status=409)
    shell = argparse.Namespace(**{**vars(args), "container": debug.name, "stdin": True, "remote": []})
    shell.tty = _isatty(inp)
    return open_shell(client, shell, out, inp)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
