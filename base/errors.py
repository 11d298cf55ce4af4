"""The service error taxonomy and its three mappings, each written once.

Services and the core raise ``ServiceError`` subclasses (defined in ``pincompute.errors`` so the
core's own validation belongs to the same family). This module maps them:

- to a Django form: ``add_to_form(form, exc)`` puts each field error beside its field;
- to the API's JSON error body: ``base.api.api_exception_handler`` (DRF) uses ``status``/``code``/``fields``;
- to a websocket close code: ``close_code(exc)``.
"""

from __future__ import annotations

from django import forms

from pincompute.errors import (
    Conflict,
    FieldError,
    Forbidden,
    Invalid,
    NotFound,
    ServiceError,
    Unauthenticated,
    Unavailable,
    Unprocessable,
)

__all__ = [
    "Conflict",
    "FieldError",
    "Forbidden",
    "Invalid",
    "NotFound",
    "ServiceError",
    "Unauthenticated",
    "Unavailable",
    "Unprocessable",
    "add_to_form",
    "close_code",
]


def add_to_form(form: forms.BaseForm, exc: ServiceError, *, aliases: dict[str, str] | None = None) -> None:
    """Show every field error beside its field (``aliases`` maps service paths to form field names);
    errors about fields the form does not have, or about the whole input, become non-field errors."""
    aliases = aliases or {}
    fields = exc.fields or (FieldError("", exc.message),)
    for error in fields:
        name = aliases.get(error.path, error.path)
        if name in form.fields:
            form.add_error(name, error.message)
        else:
            form.add_error(None, str(error))


def close_code(exc: ServiceError) -> int:
    """The websocket close code for a refusal (4400 + the HTTP status's last two digits, e.g. 4404)."""
    return exc.close_code
