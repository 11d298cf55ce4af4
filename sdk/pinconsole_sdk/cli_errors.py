"""How ``pincompute`` ends: the exit code of each error (stable: sdk/README.md lists them), the error as printed,
and the check that every argument sent to the portal is text."""

from __future__ import annotations

import argparse
from typing import TextIO

from pinconsole_sdk.cli_targets import UsageError
from pinconsole_sdk.errors import ApiError, ConflictError, ConnectionFailed, NotFound, RateLimited, ServerError

OK, API_ERROR, USAGE, NOT_FOUND, CONFLICT, UNAVAILABLE = 0, 1, 2, 3, 4, 5
INTERRUPTED = 130  # Ctrl-C: get -w, logs -f, exec


def exit_code(error: Exception) -> int:
    if isinstance(error, NotFound):
        return NOT_FOUND
    if isinstance(error, ConflictError):
        return CONFLICT
    if isinstance(error, RateLimited | ServerError | ConnectionFailed):
        return UNAVAILABLE
    return API_ERROR


def report(error: Exception, err: TextIO) -> None:
    if isinstance(error, ApiError):
        err.write(f"Error from server ({error.code or error.status}): {error.message}\n")
        for f in error.fields:
            err.write(f"  {f.path or '(document)'}: {f.message}\n")
        if isinstance(error, ConflictError) and error.live_version:
            err.write(f"  sent version {error.sent_version or '-'}, live version {error.live_version}\n")
        if error.request_id and error.request_id != "-":
            err.write(f"  request id: {error.request_id}\n")
    else:
        err.write(f"error: {error}\n")


POSITIONALS = {
    "resources": "KIND/NAME",
    "resource": "KIND/NAME",
    "target": "POD",
    "pod": "POD",
    "remote": "the command after --",
}
NOT_TEXT = ("filename", "token")  # file names are the system's bytes; the token is checked (unshown) by Client


def check_text(args: argparse.Namespace) -> None:
    """Every argument sent to the portal must be text: a byte that is not UTF-8 (``-p $'\\xff'``) reaches Python
    as a lone surrogate, which no URL, header or JSON body can carry."""
    for dest, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            if dest in NOT_TEXT or not isinstance(item, str):
                continue
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                what = POSITIONALS.get(dest, "--" + dest.replace("_", "-"))
                raw = item.encode("utf-8", "surrogateescape")
                raise UsageError(f"{what} is not UTF-8 text: {raw!r}") from None
