"""Native objects as YAML lines, each line marked when the runtime profile put it there.

The translation injects the profile (``pincompute.runtime.inject``) into every pod template: platform
containers, the logging volume and its mounts, identity env, the tier's PriorityClass, the standard labels and
the profile annotations. Those parts are recognised by the names the profile gives them (a user value with the
same name wins in ``inject``, so a user env var of that name is not marked).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from pincompute.labels import INJECTED_ANNOTATION, PROFILE_ANNOTATION
from pincompute.runtime import RuntimeProfile

Path = tuple[str | int, ...]
Mark = Callable[[Path, Any, Any], bool]


@dataclass(frozen=True)
class Line:
    text: str
    injected: bool


def scalar(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    text = yaml.safe_dump(value, default_flow_style=True, width=10**6, allow_unicode=True)
    return text.removesuffix("\n...\n").strip()


def lines(obj: Any, mark: Mark) -> list[Line]:
    """``obj`` as block YAML; ``mark(path, value, parent)`` says which subtrees the platform injected."""
    out: list[Line] = []
    _emit(obj, 0, (), mark, out, False)
    return out


def _emit(value: Any, indent: int, path: Path, mark: Mark, out: list[Line], injected: bool) -> None:
    pad = "  " * indent
    if isinstance(value, dict):
        for key, child in value.items():
            here = (*path, str(key))
            flag = injected or mark(here, child, value)
            if isinstance(child, dict | list) and child:
                out.append(Line(f"{pad}{scalar(str(key))}:", flag))
                _emit(child, indent + 1, here, mark, out, flag)
            else:
                out.append(Line(f"{pad}{scalar(str(key))}: {scalar(child)}", flag))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            here = (*path, index)
            flag = injected or mark(here, child, value)
            if isinstance(child, dict | list) and child:
                start = len(out)
                _emit(child, indent + 1, here, mark, out, flag)
                first = out[start]
                out[start] = Line(f"{pad}- {first.text.lstrip()}", first.injected)
            else:
                out.append(Line(f"{pad}- {scalar(child)}", flag))


def injection_marker(profile: RuntimeProfile, kind: str, user_env: Collection[str] = ()) -> Mark:
    """A ``mark`` for the objects ``kind`` translates to; ``user_env``: env names the user set themselves."""
    runtime = profile.kinds.get(kind)  # none for a kind that runs no pods (PinScaler)
    if runtime is None:
        return lambda path, value, parent: False
    platform_containers = set(runtime.containers)
    platform_volumes = set(runtime.volumes)
    env_names = {name for name, _ in profile.env} - set(user_env)
    label_keys = {key for key, _ in profile.labels}
    annotations = {PROFILE_ANNOTATION, INJECTED_ANNOTATION}

    def named(value: Any, names: Collection[str]) -> bool:
        return isinstance(value, Mapping) and value.get("name") in names

    def mark(path: Path, value: Any, parent: Any) -> bool:
        if len(path) < 2:
            return False
        key, owner = path[-1], path[-2]
        if isinstance(key, int):
            if owner == "initContainers":
                return named(value, platform_containers)
            if owner == "volumes":
                return named(value, platform_volumes)
            if owner == "volumeMounts":
                return named(value, platform_volumes)
            if owner == "env":
                return named(value, env_names)
            return False
        if key == "priorityClassName":
            return True
        if owner == "labels":
            return key in label_keys
        if owner == "annotations":
            return key in annotations
        return False

    return mark


def injected_paths(obj: Any, mark: Mark) -> list[str]:
    """The paths (``spec.template.spec.initContainers[0]``) of the outermost parts of ``obj`` that ``mark`` says the
    platform injected: what the API returns beside the object, where the page highlights lines."""
    found: list[str] = []

    def walk(value: Any, path: Path) -> None:
        children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, child in children:
            here = (*path, key if isinstance(key, int) else str(key))
            if mark(here, child, value):
                found.append(dotted(here))
            else:
                walk(child, here)

    walk(obj, ())
    return found


def dotted(path: Path) -> str:
    """``("spec", "containers", 0, "env")`` as ``spec.containers[0].env``; a key that is not a plain word (a label's
    ``app.kubernetes.io/name``) in brackets and quotes, as JSONPath writes it: ``labels['app.kubernetes.io/name']``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", part):
            text += f".{part}" if text else part
        else:
            text += "['" + part.replace("\\", "\\\\").replace("'", "\\'") + "']"
    return text
