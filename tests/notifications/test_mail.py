"""Real mails through the session's Mailpit (read back through its API): a quota request reaches the approvers by
mail and on the bell, the decision the requester; another tenant gets nothing; a digest user gets one mail a day."""

from __future__ import annotations

import pytest

from devtools.waiting import wait_for
from notifications.models import Notification
from notifications.services import set_preferences
from notifications.tasks import send_digests, send_notification_emails
from projects.grants import QuotaInput
from projects.quota import change_quota, reject_request

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def smtp(settings, mailpit):
    """Real SMTP to the session's Mailpit (pytest-django swaps in the in-memory backend for every test)."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"


def mails_to(mailpit, address: str, needle: str) -> list[dict]:
    """The full mails to ``address`` whose text holds ``needle``."""
    found = []
    for summary in mailpit.messages():
        if address in [to["Address"] for to in summary["To"]]:
            full = mailpit.message(summary["ID"])
            if needle in full["Text"]:
                found.append(full)
    return found


def mail(ids=None) -> int:
    """The worker's task, run here on the notifications just made (as the worker runs it from the queue)."""
    return send_notification_emails(ids if ids is not None else list(Notification.objects.values_list("pk", flat=True)))


def test_a_quota_request_and_its_decision_are_mailed_and_counted(
    mailpit, project, owner, admin_user, other_user, other_project, user_client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        change = change_quota(project, "reserved", QuotaInput(cpu="60", memory="32Gi", pods="50"), actor=owner)
    request = change.request
    assert mail() == 1

    needle = f"request #{request.pk}"
    sent = wait_for(lambda: mails_to(mailpit, admin_user.email, needle), 30, what="the approver's mail")
    assert sent[0]["Subject"] == "[PinConsole] Quota request made" and "/projects/requests/" in sent[0]["Text"]
    user_client.force_login(admin_user)
    page = user_client.get("/projects/").content.decode()
    assert ">1</span>" in page.split('id="nav-notifications"')[1][:80]  # the approver's bell

    with django_capture_on_commit_callbacks(execute=True):
        reject_request(request.pk, actor=admin_user, reason="The region is full.")
    assert mail() == 1  # the request's mail was sent already: only the decision's now
    decided = wait_for(lambda: mails_to(mailpit, owner.email, f"#{request.pk}"), 30, what="the requester's mail")
    assert "rejected: The region is full." in decided[0]["Text"]
    assert mails_to(mailpit, other_user.email, f"#{request.pk}") == []  # another tenant: nothing


def test_a_digest_user_gets_nothing_at_once_and_one_mail_from_the_daily_task(
    mailpit, project, owner, admin_user, django_capture_on_commit_callbacks
):
    set_preferences({"digest": True}, user=admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        request = change_quota(project, "reserved", QuotaInput(cpu="60", memory="32Gi", pods="50"), actor=owner).request
    assert mail() == 0

    assert send_digests() == 1
    digest = wait_for(lambda: mails_to(mailpit, admin_user.email, f"request #{request.pk}"), 30, what="the digest")
    assert digest[0]["Subject"] == "[PinConsole] 1 notifications today"
    assert send_digests() == 0  # run twice: nothing mailed twice
