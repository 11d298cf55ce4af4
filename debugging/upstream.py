"""How a stream from a member's apiserver failed, and the TLS context its connections share: for the shell's exec
(``kubeexec``) and the log follows (``logs.streams``, ``logs.files``) alike.

A failed stream says why with a ``StreamFailure``: the socket closes with its code, never 1000, so a client (the
CLI's exit status) can tell a failure from the end of a log or a shell.
"""

from __future__ import annotations

from dataclasses import dataclass

NOT_THERE, UPSTREAM_FAILED = 4404, 4502


@dataclass(frozen=True)
class StreamFailure:
    """Why a follow failed: ``code`` 4404 when what was asked for is not there, 4502 when the apiserver (or the
    kubelet or container behind it) failed or could not be reached. ``what`` is ours and may name ``{apiserver}``,
    filled in with the cluster by ``message``; ``detail`` is the other side's text, shown as it came."""

    code: int
    what: str
    detail: str = ""

    def message(self, cluster: str = "") -> str:
        head = self.what.format(apiserver=f"{cluster}'s apiserver" if cluster else "the apiserver")
        return f"{head}: {self.detail}" if self.detail else head


def unreachable(detail: str) -> StreamFailure:
    """The apiserver could not be reached (connect refused or timed out, TLS, the handshake)."""
    return StreamFailure(UPSTREAM_FAILED, "Could not reach {apiserver}", detail)


def lost(detail: str) -> StreamFailure:
    """The connection broke after the stream had started."""
    return StreamFailure(UPSTREAM_FAILED, "Lost {apiserver} mid-stream", detail)


def refused(status: int, message: str, *, previous: bool = False) -> StreamFailure:
    """The apiserver answered an error status. For ``previous`` a 400 means there is no previous instance (each
    runtime words it its own way, kwok as ``seek .: invalid argument``): say that, not their text."""
    if previous and status == 400:
        return StreamFailure(NOT_THERE, "No previous container: it has not restarted, or its log is gone")
    if status == 404:
        return StreamFailure(NOT_THERE, "Not found on {apiserver}", message)
    return StreamFailure(UPSTREAM_FAILED, f"{{apiserver}} answered {status}", message)


def hung(detail: str) -> StreamFailure:
    """The apiserver stopped answering while the follow was open (``Liveness``)."""
    return StreamFailure(UPSTREAM_FAILED, "{apiserver} stopped answering", detail)


def ended_reason(failure: StreamFailure | None) -> str:
    """How a follow ended, for status messages and the session row."""
    return "ended" if failure is None else f"failed: {failure.message()}"
