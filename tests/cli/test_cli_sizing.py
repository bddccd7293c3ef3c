"""``heldout size hoeffding|bernstein|binomial|normal`` on the command line."""

from __future__ import annotations

import json
import math

import pytest
from cli_support import run_heldout

from heldout.cli import main


def _json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_issue_example_subprocess():
    out = run_heldout(*"size hoeffding --range 14 --tolerance 0.1 --alpha 0.05 --json".split())
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    # ln(40) * 14^2 / (2 * 0.1^2) = 36151.02, so the smallest integer size is 36152
    assert result["n"] == math.ceil(math.log(40) * 196 / 0.02) == 36152
    assert isinstance(result["n"], int)
    assert result["bound_at_n"] <= 0.05


def test_hoeffding_from_the_collar(capsys):
    result = _json(
        capsys,
        *"size hoeffding --mu 0.01 --tolerance 0.1 --alpha 0.05 --json".split(),
    )
    u = -2 * math.log2(0.01)
    assert result["range"] == pytest.approx(u)
    assert result["n"] == math.ceil(math.log(40) * u**2 / 0.02)
    natural = _json(
        capsys,
        *"size hoeffding --mu 0.01 --base e --tolerance 0.1 --alpha 0.05 --json".split(),
    )
    assert natural["n"] == math.ceil(math.log(40) * (2 * math.log(100)) ** 2 / 0.02)


def test_bernstein_and_empirical(capsys):
    args = [
        *"--range 13 --variance 2.5 --tolerance 0.1 --alpha 0.05 --json".split(),
    ]
    plain = _json(capsys, "size", "bernstein", *args)
    assert plain["n"] == math.ceil(math.log(40) * (5 + 2 * 13 * 0.1 / 3) / 0.01)
    assert plain["hoeffding_n"] == math.ceil(math.log(40) * 169 / 0.02)
    emp = _json(capsys, "size", "bernstein", "--empirical", *args)
    n = emp["n"]
    radius = lambda k: math.sqrt(5 * math.log(80) / k) + 7 * 13 * math.log(80) / (3 * (k - 1))  # noqa: E731
    assert radius(n) <= 0.1 < radius(n - 1)


def test_binomial_and_normal(capsys):
    result = _json(
        capsys,
        *"size binomial --tolerance 0.02 --alpha 0.05 --p 0.1 --json".split(),
    )
    assert result["probability_at_n"] <= 0.05
    assert result["n"] < result["hoeffding_n"] == math.ceil(math.log(40) / (2 * 0.02**2))
    worst = _json(capsys, "size", "binomial", "--tolerance", "0.1", "--alpha", "0.05", "--json")
    assert worst["p"] == "worst" and worst["n"] <= worst["hoeffding_n"]
    normal = _json(
        capsys,
        *"size normal --variance 0.09 --tolerance 0.02 --alpha 0.05 --json".split(),
    )
    assert normal["n"] == math.ceil(1.959963984540054**2 * 0.09 / 0.02**2)


def test_plain_output(capsys):
    assert (
        main(["size", "hoeffding", "--range", "14", "--tolerance", "0.1", "--alpha", "0.05"]) == 0
    )
    assert "36152" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "word"),
    [
        (
            ["size", "hoeffding", "--range", "-1", "--tolerance", "0.1", "--alpha", "0.05"],
            "range",
        ),
        (["size", "hoeffding", "--range", "14", "--tolerance", "0.1", "--alpha", "2"], "alpha"),
        (["size", "hoeffding", "--tolerance", "0.1", "--alpha", "0.05"], "--range"),
        (
            [
                *"size hoeffding --range 14 --mu 0.01 --tolerance 0.1 --alpha 0.05".split(),
            ],
            "not both",
        ),
        (["size", "hoeffding", "--mu", "0.9", "--tolerance", "0.1", "--alpha", "0.05"], "mu"),
        (
            [
                *"size bernstein --range 1 --variance 3 --tolerance 0.1 --alpha 0.05".split(),
            ],
            "variance",
        ),
        (["size", "binomial", "--tolerance", "0.1", "--alpha", "0.05", "--p", "1.5"], "p"),
        (
            ["size", "normal", "--variance", "1", "--tolerance", "0", "--alpha", "0.05"],
            "tolerance",
        ),
        (
            ["size", "hoeffding", "--range", "abc", "--tolerance", "0.1", "--alpha", "0.05"],
            "range",
        ),
    ],
)
def test_bad_input_exit_2_one_line(capsys, argv, word):
    with pytest.raises(SystemExit) if "abc" in argv else _NoRaise():
        status = main(argv)
        assert status == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert word in err
    assert "Traceback" not in err


class _NoRaise:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_old_option_names_still_work(capsys):
    new = _json(
        capsys,
        *"size hoeffding --range 14 --tolerance 0.1 --alpha 0.01 --json".split(),
    )
    old = _json(
        capsys,
        *"size hoeffding --range 14 --tolerance 0.1 --epsilon 0.01 --json".split(),
    )
    assert new == old and new["alpha"] == 0.01
    default = _json(capsys, "size", "hoeffding", "--range", "14", "--tolerance", "0.1", "--json")
    assert default["alpha"] == 0.05 and default["n"] == 36152
    code = main(
        [
            *"size hoeffding --range 14 --tolerance 0.1 --alpha 0.1 --epsilon 0.1".split(),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--alpha and --epsilon" in err
