"""heldout._checks: every bad input becomes one ValueError naming the argument (issue 19)."""

from __future__ import annotations

import numpy as np
import pytest

from heldout import _checks as c


@pytest.mark.parametrize(
    "value",
    [2**63, 2**64 - 1, 2**64, 2**70, 1e300, 9.3e18, np.uint64(2**63), [1, 2**70], float("inf")],
)
def test_counts_of_2_63_or_more_are_refused_not_wrapped(value):
    with pytest.raises(ValueError, match=r"^k must be (less than 2\*\*63|finite)"):
        c.as_count(value, "k")


def test_largest_count_is_exact():
    assert c.as_count(2**63 - 1, "k", scalar=True) == 2**63 - 1
    assert c.as_count(np.array([2**62 + 1]), "k")[0] == 2**62 + 1  # no float rounding
    assert c.as_count(38.0, "k", scalar=True) == 38


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("3", "must be a whole number"),
        (None, "must be a whole number"),
        (3 + 0j, "must be a whole number"),
        ([1, [2, 3]], "must be a whole number"),
        ({}, "must be a whole number"),
        ([], "must not be empty"),
        (np.nan, "must not be NaN"),
        (2.5, "must be a whole number"),
        (-1, "must be at least 0"),
    ],
)
def test_bad_counts(value, fragment):
    with pytest.raises(ValueError, match=f"^k {fragment}"):
        c.as_count(value, "k")


def test_scalar_refuses_arrays_and_names_the_shape():
    with pytest.raises(
        ValueError, match=r"^alpha must be a single number, got an array of shape \(2,\)"
    ):
        c.as_probability([0.1, 0.2], "alpha", scalar=True)
    assert isinstance(c.as_positive(2, "x", scalar=True), float)


def test_counts_pair():
    with pytest.raises(ValueError, match="^k must not exceed m"):
        c.as_counts(5, 3)
    with pytest.raises(ValueError, match="^k and m have shapes"):
        c.as_counts([1, 2], [3, 4, 5])
    assert c.as_counts(3, 10, scalar=True) == (3, 10)


def test_numbers_and_choices():
    with pytest.raises(ValueError, match="^p must be strictly between 0 and 1"):
        c.as_probability(1.0, "p")
    assert c.as_probability(1.0, "p", closed=True) == 1.0
    with pytest.raises(ValueError, match="^x must be finite"):
        c.as_positive(np.inf, "x")
    with pytest.raises(ValueError, match="^c0 must be finite"):
        c.as_real(-np.inf, "c0")
    with pytest.raises(ValueError, match="^method must be one of 'a', 'b', got 'c'"):
        c.as_choice("c", "method", ("a", "b"))
    with pytest.raises(ValueError, match="^method must be one of"):
        c.as_choice(["a"], "method", ("a", "b"))
    with pytest.raises(ValueError, match="^clip must be True or False"):
        c.as_flag(1, "clip")
    assert c.as_flag(np.bool_(True), "clip") is True


def test_sizes_that_overflow():
    assert c.as_size(np.array([3.0, 1e18])).tolist() == [3, 10**18]
    with pytest.raises(
        ValueError, match=r"^the size exceeds 2\*\*63 - 1 \(n would be about 1e\+19\)"
    ):
        c.as_size(1e19, "n")
    with pytest.raises(ValueError, match="^the size exceeds"):
        c.as_size(np.nan, "n")
    with pytest.raises(ValueError, match="^reps would need 2,000 steps"):
        c.check_work(2000, 1000, "reps")
    c.check_work(1000, 1000, "reps")


def test_messages_show_plain_numbers():
    assert c.show(np.asarray(0.6)) == "0.6"
    assert c.show(np.float64(2.5)) == "2.5"
    assert "array(" not in c.show(np.arange(100))
    with pytest.raises(ValueError) as info:
        c.as_probability(np.asarray(1.6), "p")
    assert "array(" not in str(info.value) and str(info.value).endswith("got 1.6")
    with pytest.raises(ValueError, match="^a and b have shapes"):
        c.broadcast(a=np.zeros(2), b=np.zeros(3))
