"""``pincompute exec`` when the shell's apiserver connection breaks (probe 5, item 3): the portal closes 4502 with
a status "error" naming the cluster, and the CLI exits 5 (unavailable), never 0; a command that exits keeps its
status. The exec below the consumer is ``test_cli_streams``' local one, cut after the first output here."""

from __future__ import annotations

from typing import Any

import pytest

from base.models import AuditEvent
from debugging.kubeexec import ExecResult, broken
from tests.support.sdk_cli import PtyExec, cli, portal  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db(transaction=True)


class CutExec(PtyExec):
    """Prints the marker and "start" once the CLI typed its line, then its apiserver connection breaks."""

    async def open(self) -> None:
        pass

    async def write_stdin(self, data: str) -> None:
        self.output_queue.put_nowait("\x1estart\r\n")
        self.output_queue.put_nowait(ExecResult("error: ConnectionClosedError", failure=broken(ConnectionResetError())))

    async def close(self) -> None:
        pass


@pytest.fixture
def cut(portal: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr("debugging.shell.consumer.ExecSession", CutExec)


@pytest.mark.usefixtures("cut")
def test_exec_cut_by_its_apiserver_exits_5_naming_the_cluster(cli, developer):  # noqa: F811
    code, out, err = cli(developer, "exec", "web-1", "-p", "ads", "--cluster", "member-a", "--", "sleep", "15")

    assert code == 5, (code, out, err)
    assert "member-a's apiserver" in err and "start" in out, err
    close = AuditEvent.objects.filter(action="shell.close").first()
    assert close is None or close.after["reason"].startswith("error")
