"""What ``pincompute describe`` prints first: why the workload is (not) running (``GET .../diagnosis/``)."""

from __future__ import annotations

from typing import Any, TextIO

from pinconsole_sdk.client import Client


def fetch_diagnosis(client: Client, project: str, kind: str, name: str) -> dict[str, Any]:
    """The workload's diagnosis: ``state``, ``severity``, ``cause``, ``nextStep``, ``target``, ``link``."""
    answer = client.request("GET", Client._one(project, kind, name) + "diagnosis/")
    return answer if isinstance(answer, dict) else {}


def write_diagnosis(diagnosis: dict[str, Any], url: str, out: TextIO) -> None:
    """Three lines: the state, the cause and the next step (with its page, when it has one)."""
    link = str(diagnosis.get("link") or "")
    where = f" ({url.rstrip('/')}{link})" if link else ""
    out.write(
        f"State:        {diagnosis.get('state', '-')}\n"
        f"Why:          {diagnosis.get('cause', '-')}\n"
        f"Next step:    {diagnosis.get('nextStep', '-')}{where}\n"
    )
