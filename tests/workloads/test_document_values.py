"""Values PyYAML resolves but cannot build (an impossible date, an integer of more than 4300 digits) or builds
but nothing downstream can hold (a hex integer too long to print, a lone surrogate) are refused by
``load_document`` as a 400 naming ``document`` and the line, never a plain ValueError (a 500)."""

import pytest

from base.errors import Invalid
from pincompute.documents import load_document

VALUES = {
    "feb-30": "2001-02-30",
    "month-13": "2001-13-45",
    "year-0": "0000-01-01",
    "offset-99": "2001-12-14t21:59:43.10+99:00",
    "5000-digits": "9" * 5000,
    "hex": "0x" + "f" * 5000,
    "negative-hex": "-0x" + "f" * 4000,
    "binary": "0b" + "1" * 20000,
    "base-60": ":".join(["59"] * 3000),
    "base-60-float": ":".join(["59"] * 3000) + ".5",
    "surrogate": '"\\ud800"',
    "low-surrogate": '"x\\udc00y"',
}


def refusal(text: str) -> Invalid:
    with pytest.raises(Invalid) as caught:
        load_document(text)
    assert caught.value.status == 400 and [f.path for f in caught.value.fields] == ["document"]
    assert len(caught.value.message) < 400
    caught.value.message.encode("utf-8")  # the message itself is text
    return caught.value


@pytest.mark.parametrize("value", VALUES.values(), ids=VALUES.keys())
def test_a_value_that_cannot_be_built_is_refused_with_its_line(value):
    assert "line 3" in refusal(f"kind: PinPod\nmetadata: {{name: a}}\nlabels: {{a: {value}}}\n").message


SHORT = {name: value for name, value in VALUES.items() if len(value) < 1024}  # YAML's longest implicit key


@pytest.mark.parametrize("value", SHORT.values(), ids=SHORT.keys())
def test_a_key_that_cannot_be_built_is_refused_too(value):
    assert "line 2" in refusal(f"kind: PinPod\n{value}: 1\n").message


def test_dates_are_named_with_what_is_wrong_and_how_to_keep_them_as_text():
    message = refusal("a: 2001-02-30").message

    assert "2001-02-30 is not a valid date or time (day is out of range for month)" in message
    assert "quote it" in message


def test_an_integer_too_long_is_named_without_its_digits():
    message = refusal("cpu: 0x" + "f" * 5000).message

    assert "more than 4300 digits" in message and "f" * 30 not in message


def test_values_within_the_limits_are_read_as_before():
    document = load_document(f'a: 2001-02-28\nb: {"9" * 4300}\nc: 0x{"f" * 100}\nd: "2001-02-30"\ne: 59:59\n')

    assert str(document["a"]) == "2001-02-28" and document["b"] == int("9" * 4300)
    assert document["c"] == 16**100 - 1 and document["d"] == "2001-02-30" and document["e"] == 3599


def test_an_escaped_surrogate_pair_is_one_character_as_in_json():
    assert load_document('a: "\\ud83d\\ude80"\n"\\ud83d\\ude00": x') == {"a": "\U0001f680", "\U0001f600": "x"}


def test_the_lone_surrogate_is_named_even_after_a_pair():
    assert "\\udc01 is half of a surrogate pair" in refusal('a: "\\ud83d\\ude00 \\udc01"').message
