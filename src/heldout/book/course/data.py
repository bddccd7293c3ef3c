"""The data sets the problem sets use: the example files of the book's repository.

``examples/make_examples.py`` writes them with fixed seeds (the same bytes each run), so a
student with a clone of the repository has exactly the instructor's files.  Each loader
returns numpy arrays; the path of the folder can be given (a student's own copy).

Examples
--------
>>> y, pred = predictions()
>>> pred.shape, sorted(set(y.tolist())) == list(range(10))
((2000, 4), True)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["examples_dir", "items", "outcomes", "predictions", "scores"]

#: The model columns of ``predictions.csv``, in order.
MODELS = ("model_a", "model_b", "model_c", "model_d")


def examples_dir(folder=None) -> Path:
    """The folder holding the example files (the repository's ``examples/`` by default).

    Examples
    --------
    >>> examples_dir().name
    'examples'
    """
    path = Path(folder) if folder is not None else Path(__file__).resolve().parents[4] / "examples"
    if not (path / "predictions.csv").is_file():
        raise ValueError(
            f"folder: no example files in {path.name!r}; run python examples/make_examples.py "
            "in a clone of the book's repository"
        )
    return path


def _table(name: str, folder=None) -> np.ndarray:
    return np.loadtxt(examples_dir(folder) / name, delimiter=",", skiprows=1)


def predictions(folder=None) -> tuple[np.ndarray, np.ndarray]:
    """``predictions.csv``: the labels (2,000) and the four models' predicted digits (2,000 x 4).

    Examples
    --------
    >>> y, pred = predictions()
    >>> (pred == y[:, None]).sum(axis=0).tolist()
    [1897, 1906, 1876, 1806]
    """
    t = _table("predictions.csv", folder).astype(int)
    return t[:, 0], t[:, 1:]


def scores(folder=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``scores.csv``: 0/1 labels and the predicted probabilities of models a and b.

    Examples
    --------
    >>> y, a, b = scores()
    >>> int(y.sum()), y.size
    (195, 1000)
    """
    t = _table("scores.csv", folder)
    return t[:, 0].astype(int), t[:, 1], t[:, 2]


def items(folder=None) -> tuple[np.ndarray, np.ndarray]:
    """``items.csv``: per digit, whether the model was right (0/1) and its writer's number.

    Examples
    --------
    >>> right, writer = items()
    >>> right.size, len(set(writer.tolist()))
    (1201, 60)
    """
    rows = (examples_dir(folder) / "items.csv").read_text().split()[1:]
    writer, label, model = zip(*(r.split(",") for r in rows), strict=True)
    right = (np.array(label, dtype=int) == np.array(model, dtype=int)).astype(float)
    return right, np.array([int(w[1:]) for w in writer])


def outcomes(folder=None) -> np.ndarray:
    """``outcomes.txt``: 3,000 outcomes (1 = correct) in the order they were labelled.

    Examples
    --------
    >>> outcomes().size
    3000
    """
    return np.loadtxt(examples_dir(folder) / "outcomes.txt", dtype=int)
