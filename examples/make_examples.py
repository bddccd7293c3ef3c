"""Write the small example files the README's command-line examples read.

Run from anywhere: ``python examples/make_examples.py``.  Every file is simulated with a
fixed seed, so running it again writes the same bytes.

* ``predictions.csv``: 2,000 items, a digit ``label`` and the predicted digit of four models
  (two 95 % accurate, one 93 %, one 90 %, with errors correlated through item difficulty);
  for ``heldout compare --predictions``.
* ``scores.csv``: 1,000 items, a 0/1 ``label`` (a fifth positive) and two models' predicted
  probabilities; for ``heldout evaluate``.
* ``items.csv``: 1,201 digits by 60 writers, each writer with an accuracy of their own:
  ``writer``, ``label`` and one model's prediction; for ``heldout clustered``.
* ``outcomes.txt``: 3,000 outcomes (1 = correct) of a 90 % accurate model, one per line;
  for ``heldout label``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from heldout.comparison import best
from heldout.config import rng

HERE = Path(__file__).resolve().parent


def main() -> None:
    correct = best.simulate_correct([0.95, 0.95, 0.93, 0.90], 2000, seed=7)
    gen = rng(7)
    labels = gen.integers(0, 10, len(correct))
    wrong = (labels[:, None] + gen.integers(1, 10, correct.shape)) % 10
    predicted = np.where(correct, labels[:, None], wrong)
    np.savetxt(
        HERE / "predictions.csv",
        np.column_stack([labels, predicted]),
        fmt="%d",
        delimiter=",",
        header="label,model_a,model_b,model_c,model_d",
        comments="",
    )

    gen = rng(8)
    y = (gen.random(1000) < 0.2).astype(int)
    noise = gen.normal(0.0, 1.0, (2, 1000))
    score_a = 1 / (1 + np.exp(-(-1.5 + 2.4 * y + noise[0])))
    score_b = 1 / (1 + np.exp(-(-1.5 + 2.0 * y + noise[1])))
    np.savetxt(
        HERE / "scores.csv",
        np.column_stack([y, score_a, score_b]),
        fmt=["%d", "%.4f", "%.4f"],
        delimiter=",",
        header="label,model_a,model_b",
        comments="",
    )

    gen = rng(9)
    writer = np.repeat(np.arange(60), gen.integers(5, 30, 60))
    right = gen.random(writer.size) < gen.beta(18, 2, 60)[writer]
    digit = gen.integers(0, 10, writer.size)
    guess = np.where(right, digit, (digit + gen.integers(1, 10, digit.size)) % 10)
    lines = [f"w{w:02d},{d},{g}" for w, d, g in zip(writer, digit, guess, strict=True)]
    (HERE / "items.csv").write_text("writer,label,model\n" + "\n".join(lines) + "\n")

    outcomes = (rng(4).random(3000) < 0.9).astype(int)
    (HERE / "outcomes.txt").write_text("\n".join(map(str, outcomes)) + "\n")


if __name__ == "__main__":
    main()
