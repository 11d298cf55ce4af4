"""A write whose outcome is unknown is not told "Nothing was changed" (it may have been); other 503s are."""

from __future__ import annotations

from django.template.loader import render_to_string

from pincompute.errors import Unavailable
from workloads.host import OutcomeUnknown


def _actions(error: Exception) -> str:
    w = {"project": {"name": "ads"}, "kind": "PinApp", "name": "web"}
    return render_to_string("workloads/partials/actions.html", {"error": error, "w": w, "actions": []})


def test_an_unknown_outcome_is_not_said_to_have_changed_nothing():
    text = _actions(OutcomeUnknown("The host did not answer: the scale may or may not have been applied."))

    assert "may or may not have been applied" in text and "Nothing was changed" not in text


def test_an_unreachable_host_still_says_nothing_was_changed():
    assert "Nothing was changed" in _actions(Unavailable("The host is unreachable."))
