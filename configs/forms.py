"""The Secret and ConfigMap forms: values as ``KEY=VALUE`` lines (shape only; ``configs.services`` validates)."""

from __future__ import annotations

from django import forms

from pincompute.configs import DATA_MAX_BYTES

LINES_HELP = f"One KEY=VALUE per line; at most {DATA_MAX_BYTES} bytes in all."


def parse_lines(text: str) -> dict[str, str]:
    """``KEY=VALUE`` lines (blank lines skipped) as a mapping; a line without ``=`` is refused by its number only
    (the line may be a value)."""
    data: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise forms.ValidationError(f"Line {number} has no '=': write KEY=VALUE.")
        data[key.strip()] = value
    return data


class LinesField(forms.CharField):
    widget = forms.Textarea(attrs={"rows": 5, "spellcheck": "false", "autocomplete": "off"})

    def to_python(self, value: object) -> dict[str, str]:  # type: ignore[override]
        return parse_lines(str(value or ""))


class CreateForm(forms.Form):
    name = forms.CharField(max_length=253, help_text="Lower case letters, digits, '-' and '.'.")
    data = LinesField(label="Values", help_text=LINES_HELP, required=False)


class EditForm(forms.Form):
    data = LinesField(label="Set", help_text="Keys to add or replace. " + LINES_HELP, required=False)
    remove = forms.MultipleChoiceField(label="Remove", choices=(), required=False, widget=forms.CheckboxSelectMultiple)
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args: object, keys: list[str], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["remove"].choices = [(k, k) for k in keys]  # type: ignore[attr-defined]
