"""``pincompute notifications`` against the real portal (``live_server``) with a real API token: lists the caller's
own (``*`` unread), ``--unread``, ``--read ID``, ``--read-all``; another user's id is a 404 (exit code 3)."""

from __future__ import annotations

import io

import pytest
from pinconsole_sdk.cli import main

from accounts.services import create_api_token
from notifications.models import Event, Notification
from notifications.services import notify


@pytest.mark.django_db(transaction=True)
def test_the_cli_lists_and_marks_the_callers_notifications(live_server, user, other_user, monkeypatch):
    notify(Event.QUOTA_DECIDED, recipients=[user], text="Your request #1 was approved.", key="a")
    notify(Event.PROVISIONING_FAILED, recipients=[user], text="Provisioning failed.", key="b")
    notify(Event.QUOTA_DECIDED, recipients=[other_user], text="Someone else's.", key="c")
    mine, theirs = Notification.objects.get(key="a"), Notification.objects.get(key="c")
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)
    monkeypatch.setenv("PINCONSOLE_TOKEN", create_api_token(user=user, name="cli", days=1)[1])

    def cli(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()

    code, out, _ = cli("notifications")
    assert code == 0 and out.count("\n") == 2 and "Someone else" not in out
    assert all(line.startswith("*") for line in out.splitlines())
    assert cli("notifications", "--read", str(mine.pk)) == (0, f"notification {mine.pk} read\n", "")
    code, out, _ = cli("notifications", "--unread")
    assert code == 0 and "Provisioning failed." in out and "approved" not in out

    code, _, err = cli("notifications", "--read", str(theirs.pk))
    assert code == 3 and "not_found" in err  # NOT_FOUND
    assert cli("notifications", "--read-all") == (0, "1 notification(s) marked read\n", "")
    assert cli("notifications", "--unread") == (0, "no unread notifications\n", "")
    assert cli("notifications", "--read", "1", "--read-all")[0] == 2
