"""Round four's inputs (issue 53): property tests over classes of inputs, one test per class.

Argument types, escaped CSS in the page view, URL-valued metadata, invalid dates, JSON-LD numbers, server-chosen
content types.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_web2text import extract

WORDS = "Readable words of the article stay in the text. " * 8
PAGE = f"<html><body><article><p>{WORDS}</p></article></body></html>"

#: Values of a type no argument of extract() takes (bool is no number: threshold=True is an error).
WRONG_VALUES = st.one_of(
    st.integers(),
    st.booleans(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.builds(object),
    st.just(3.5j),
)
#: argument -> wrong values beyond WRONG_VALUES (floats and bytes are right for some arguments).
EXTRA_WRONG = {
    "url": st.one_of(st.floats(), st.binary(max_size=8)),
    "method": st.one_of(st.none(), st.floats(), st.binary(max_size=8)),
    "encoding": st.one_of(st.floats(), st.binary(max_size=8)),
    "content_type": st.floats(),
    "model": st.one_of(st.floats(), st.binary(max_size=8)),
}


@settings(max_examples=150, deadline=None)
@given(data=st.data(), argument=st.sampled_from([*EXTRA_WRONG, "threshold"]))
def test_an_argument_of_a_wrong_type_raises_type_error_naming_it(data, argument) -> None:
    wrong = WRONG_VALUES if argument == "threshold" else st.one_of(WRONG_VALUES, EXTRA_WRONG[argument])
    # An int is a threshold's right type (its range decides); every other wrong value is a wrong type for all.
    value = data.draw(wrong.filter(lambda v: argument != "threshold" or type(v) is not int))
    with pytest.raises(TypeError, match=rf"^{argument} must be "):
        extract(PAGE, **{argument: value})


@settings(max_examples=40, deadline=None)
@given(value=st.floats(0.01, 0.99), spelling=st.sampled_from(["{:g}", " {:.4f} ", "{:e}"]))
def test_a_threshold_given_as_a_numeric_string_is_that_number(value, spelling) -> None:
    text = spelling.format(value)
    assert extract(PAGE, threshold=text).main_text == extract(PAGE, threshold=float(text)).main_text


@pytest.mark.parametrize("threshold", ["0.5x", "", "nan", "inf", "1.5", "0", -0.1, float("nan"), 1])
def test_a_threshold_outside_the_open_unit_interval_raises_value_error_naming_it(threshold) -> None:
    with pytest.raises(ValueError, match="^threshold must "):
        extract(PAGE, threshold=threshold)
