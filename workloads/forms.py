"""The workload form, generated from the core's spec registry: one generator for the eight kinds.

``WorkloadForm`` walks a kind's schema (``pincompute.specs.KINDS[kind].schema``) for the fields people set:
scalars become inputs (enums a select, booleans a checkbox, lists of strings one per line), objects become
fieldsets and lists of objects repeatable groups whose length follows the document. Free-form parts (probes,
securityContext, volumes...) and the ones the platform fills (team, cost center) stay in the YAML only.

The YAML document is the whole truth; the form edits a part of it. Keeping them in sync is a three-way merge:
the form is rendered from a *base* document, and only the fields whose posted text differs from what the base
renders are written into the current document (``apply``), so a YAML edit the form has not seen yet survives.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms

from base.digits import whole_number
from base.errors import ServiceError, add_to_form
from pincompute.specs import KINDS
from pincompute.specs.schema import Arr, Bool, Int, IntOrStr, Node, Obj, Str, join
from pincompute.tiers import Tier

SEP = "~"
PREFIX = "f"
PROJECT_FIELD = "project"
MAX_INT_DIGITS = 18  # any int64; a longer run of digits stays text, and validation names the field
NAME_PATH: tuple[str | int, ...] = ("metadata", "name")
SKIP = frozenset(
    {
        "project",  # the project selector
        "team",  # filled from the project
        "costCenter",
        "operations",  # operations have their own buttons
        "sidecars",
        "volumes",
        "volumeMounts",
        "tolerations",
        "nodeSelector",
        "securityContext",
        "livenessProbe",
        "readinessProbe",
        "startupProbe",
        "valueFrom",
        "workingDir",
        "imagePullPolicy",
        "config",
        "selector",
        *("hostNetwork", "hostPID", "hostIPC"),
    }
)
"""Schema fields left to the YAML editor: free-form, rarely set, or filled in by the platform."""

Path = tuple[str | int, ...]


def field_name(path: Path) -> str:
    return SEP.join([PREFIX, *(str(p) for p in path)])


def core_path(path: Path) -> str:
    """The path as the core's FieldErrors spell it (``spec.containers[0].image``)."""
    out = ""
    for part in path:
        out = join(out, part)
    return out


def humanize(name: str) -> str:
    if "/" in name:
        return f"{name.rsplit('/', 1)[-1].upper()} ({name})"
    words = re.sub(r"(?<=[a-z0-9])([A-Z])", r" \1", name).split()
    text = " ".join(words).lower()
    return text[:1].upper() + text[1:]


@dataclass
class Leaf:
    name: str
    path: Path
    node: Node
    label: str
    required: bool
    bound: Any = None  # the BoundField, once the form is bound

    @property
    def wide(self) -> bool:
        return isinstance(self.node, Arr)


@dataclass
class Group:
    """An object (fieldset), a list of objects (``items`` with add/remove) or one item of such a list."""

    name: str
    path: Path
    label: str
    help: str = ""
    children: list[Leaf | Group] = field(default_factory=list)
    is_list: bool = False
    is_item: bool = False
    present: bool = True  # the document has this object (absent optional groups start folded)
    removable: bool = False

    @property
    def leaves(self) -> list[Leaf]:
        return [c for c in self.children if isinstance(c, Leaf)]

    @property
    def groups(self) -> list[Group]:
        return [c for c in self.children if isinstance(c, Group)]


def get_path(document: Any, path: Path) -> Any:
    """The value at ``path``, or None when any step is missing or of the wrong type."""
    value = document
    for part in path:
        if isinstance(part, int):
            if not isinstance(value, list) or part >= len(value):
                return None
        elif not isinstance(value, dict):
            return None
        value = value[part] if isinstance(part, int) else value.get(part)
    return value


def set_path(document: dict[str, Any], path: Path, value: Any) -> None:
    """Set (or, for None, remove) the value at ``path``, creating objects on the way; a list index beyond the
    list's end, or a step of the wrong type, is left alone (the YAML changed shape under the form)."""
    current: Any = document
    for depth, part in enumerate(path[:-1]):
        nxt = path[depth + 1]
        if isinstance(part, int):
            if not isinstance(current, list) or part >= len(current):
                return
            current = current[part]
            continue
        if not isinstance(current, dict):
            return
        if current.get(part) is None:
            if value is None:
                return
            current[part] = [] if isinstance(nxt, int) else {}
        current = current[part]
    last = path[-1]
    if isinstance(last, int):
        if isinstance(current, list) and last < len(current):
            current[last] = value
        return
    if not isinstance(current, dict):
        return
    if value is None:
        current.pop(last, None)
    else:
        current[last] = value


def render_value(node: Node, value: Any) -> str:
    """What an input shows for ``value`` (the base of the three-way merge compares these strings)."""
    if value is None:
        return ""
    if isinstance(node, Bool):
        return "on" if value is True else ""
    if isinstance(node, Arr):
        if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
            return "\n".join(str(v) for v in value)
        return ""
    if isinstance(value, dict | list):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse_value(node: Node, text: str) -> Any:
    """The document value for posted ``text`` (None: remove the key). Types the core would refuse are kept
    as typed, so validation names them beside the field."""
    text = text.strip() if not isinstance(node, Arr) else text
    if isinstance(node, Bool):
        return True if text else None
    if isinstance(node, Arr):
        items = [line.strip() for line in text.splitlines() if line.strip()]
        return items or None
    if not text:
        return None
    if isinstance(node, Int | IntOrStr):
        number = whole_number(text.removeprefix("-"), max_digits=MAX_INT_DIGITS)
        if number is not None:
            return -number if text.startswith("-") else number
    return text


def _form_field(node: Node, label: str, required: bool) -> forms.Field:
    help_parts = [node.description] if node.description else []
    attrs: dict[str, Any] = {"autocomplete": "off"}
    if isinstance(node, Str) and node.enum:
        choices = [("", "(default)")] + [(v, v) for v in node.enum]
        return forms.ChoiceField(label=label, required=False, choices=choices, help_text=" ".join(help_parts))
    if isinstance(node, Bool):
        return forms.BooleanField(label=label, required=False, help_text=" ".join(help_parts))
    if isinstance(node, Arr):
        help_parts.append("One per line.")
        widget: forms.Widget = forms.Textarea(attrs={**attrs, "rows": 2, "class": "font-monospace"})
    elif isinstance(node, Int):
        bounds = [
            f"at least {node.minimum}" if node.minimum is not None else "",
            f"at most {node.maximum}" if node.maximum is not None else "",
        ]
        if any(bounds):
            help_parts.append("A whole number, " + " and ".join(b for b in bounds if b) + ".")
        widget = forms.NumberInput(
            attrs={**attrs, **({"min": node.minimum} if node.minimum is not None else {})}
            | ({"max": node.maximum} if node.maximum is not None else {})
        )
    else:
        widget = forms.TextInput(attrs=attrs)
    field_ = forms.CharField(label=label, required=False, widget=widget, help_text=" ".join(help_parts), strip=False)
    if required:
        field_.widget.attrs["aria-required"] = "true"
    return field_


def _blank(node: Node) -> Any:
    """A new list item: its required fields, empty (validation names what is missing)."""
    if isinstance(node, Obj):
        return {f.name: _blank(f.node) for f in node.fields if f.required}
    if isinstance(node, Int):
        return node.minimum if node.minimum is not None else 0
    if isinstance(node, Arr):
        return []
    return ""


class WorkloadForm(forms.Form):
    """The form for ``kind`` over ``base`` (the document it was rendered from); ``projects``: the names of the
    projects the user may submit to. Bind with the POST to read changes, or with ``data=None`` to show ``base``."""

    def __init__(
        self, kind: str, base: Mapping[str, Any], projects: list[str], data: Mapping[str, Any] | None = None
    ) -> None:
        self.kind, self.base = kind, copy.deepcopy(dict(base))
        self.leaves: dict[str, Leaf] = {}
        self.lists: dict[str, tuple[Path, Node]] = {}
        self.aliases: dict[str, str] = {"spec.project": PROJECT_FIELD}
        spec_schema = KINDS[kind].schema
        self.root = Group("root", (), "")
        self.root.children.append(
            self._leaf(
                NAME_PATH, Str(description="A DNS label: lowercase letters, digits, -; at most 40."), True, "Name"
            )
        )
        spec = Group("spec", ("spec",), "Spec")
        spec.children = self._walk(spec_schema, ("spec",))
        self.root.children.append(spec)
        initial = self._rendered(self.base)
        project = str(get_path(self.base, ("spec", "project")) or "")
        choices = list(projects) if project in projects or not project else [project, *projects]
        initial[PROJECT_FIELD] = project if project else (projects[0] if projects else "")
        super().__init__(data=data if data is not None else initial)
        self.fields[PROJECT_FIELD] = forms.ChoiceField(
            label="Project",
            choices=[(p, p) for p in choices] or [("", "(no project you may submit to)")],
            required=False,
            help_text="The project it runs in and whose quota it uses: those where you are a developer or owner.",
        )
        for leaf in self.leaves.values():
            self.fields[leaf.name] = _form_field(leaf.node, leaf.label, leaf.required)
        self.base_text = initial
        self.is_valid()  # every field is optional text: this only makes cleaned_data and errors exist
        self.project_field = self[PROJECT_FIELD]
        for leaf in self.leaves.values():
            leaf.bound = self[leaf.name]

    # -- building ------------------------------------------------------------------------------------

    def _leaf(self, path: Path, node: Node, required: bool, label: str = "") -> Leaf:
        leaf = Leaf(field_name(path), path, node, label or humanize(str(path[-1])), required)
        self.leaves[leaf.name] = leaf
        self.aliases[core_path(path)] = leaf.name
        return leaf

    def _walk(self, schema: Obj, path: Path) -> list[Leaf | Group]:
        out: list[Leaf | Group] = []
        for f in schema.fields:
            if f.name in SKIP:
                continue
            child, here = f.node, (*path, f.name)
            if isinstance(child, Obj):
                if not child.fields:
                    continue
                value = get_path(self.base, here)
                group = Group(field_name(here), here, humanize(f.name), child.description, present=value is not None)
                group.children = self._walk(child, here)
                if group.children:
                    out.append(group)
            elif isinstance(child, Arr) and isinstance(child.items, Obj):
                out.append(self._list(f.name, child, here))
            elif isinstance(child, Str | Int | IntOrStr | Bool) or (
                isinstance(child, Arr) and isinstance(child.items, Str)
            ):
                out.append(self._leaf(here, child, f.required))
        return out

    def _list(self, name: str, node: Arr, path: Path) -> Group:
        assert isinstance(node.items, Obj)
        group = Group(field_name(path), path, humanize(name), node.description, is_list=True)
        self.lists[group.name] = (path, node.items)
        items = get_path(self.base, path)
        for index, item in enumerate(items if isinstance(items, list) else []):
            label = f"{humanize(name).rstrip('s')} {index + 1}"
            if isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"]:
                label += f": {item['name']}"
            here = (*path, index)
            entry = Group(field_name(here), here, label, is_item=True, removable=len(items) > node.min_items)
            entry.children = self._walk(node.items, here)
            group.children.append(entry)
        return group

    def _rendered(self, document: Mapping[str, Any]) -> dict[str, str]:
        return {leaf.name: render_value(leaf.node, get_path(document, leaf.path)) for leaf in self.leaves.values()}

    # -- reading -------------------------------------------------------------------------------------

    def changes(self) -> Iterator[tuple[Path, Any]]:
        """(path, new value) for every field the user changed against the base (the project included)."""
        if not self.is_bound:
            return
        for leaf in self.leaves.values():
            raw = self.data.get(leaf.name, "")
            if isinstance(leaf.node, Bool):
                raw = "on" if raw not in ("", None, "false", "off") else ""
            if str(raw).replace("\r\n", "\n") != self.base_text.get(leaf.name, ""):
                yield leaf.path, parse_value(leaf.node, str(raw).replace("\r\n", "\n"))
        project = str(self.data.get(PROJECT_FIELD, "") or "")
        if project and project != str(get_path(self.base, ("spec", "project")) or ""):
            yield ("spec", "project"), project

    def apply(self, document: Mapping[str, Any]) -> dict[str, Any]:
        """``document`` with the user's form changes written in (the three-way merge)."""
        merged = copy.deepcopy(dict(document))
        for path, value in self.changes():
            set_path(merged, path, value)
        return merged

    def show_errors(self, exc: ServiceError) -> None:
        add_to_form(self, exc, aliases=self.aliases)


def add_item(form: WorkloadForm, document: dict[str, Any], group: str) -> dict[str, Any]:
    """``document`` with a blank item appended to the list the form calls ``group`` (unknown: unchanged)."""
    if group not in form.lists:
        return document
    path, node = form.lists[group]
    items = get_path(document, path)
    if items is None:
        set_path(document, path, [])
        items = get_path(document, path)
    if isinstance(items, list):
        items.append(_blank(node))
    return document


def remove_item(form: WorkloadForm, document: dict[str, Any], item: str) -> dict[str, Any]:
    """``document`` without the list item the form calls ``item`` (``f~spec~containers~1``)."""
    parts = item.split(SEP)
    index = whole_number(parts[-1], max_digits=6)
    if len(parts) < 3 or index is None or SEP.join(parts[:-1]) not in form.lists:
        return document
    path, _ = form.lists[SEP.join(parts[:-1])]
    items = get_path(document, path)
    if isinstance(items, list) and index < len(items):
        del items[index]
        if not items:
            set_path(document, path, None)
    return document


def tier_choices() -> list[str]:
    return [t.value for t in Tier]
