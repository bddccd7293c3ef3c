"""Write the API reference page (book/api.md) from the package, organised by wing.

Usage: ``python book/_ext/api_page.py`` rewrites ``book/api.md``; ``--check`` exits 1 when
the page is out of date (``tests/test_api_page.py`` runs it).  Each wing opens with its
``__init__`` docstring (its one-paragraph overview); each module of the wing follows with
its members.  A new module appears by itself; give it a section title in ``TITLES`` (else
the first line of its docstring is used).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "book" / "api.md"

#: (wing, heading) in reading order: the library wings, then what only the book runs.
WINGS = [
    ("accuracy", "One error rate from counts"),
    ("comparison", "Several models on one test set"),
    ("dependent", "Items that are not independent"),
    ("sequential", "Label until sure"),
    ("judged", "Scores graded by a model"),
    ("metrics", "Beyond accuracy"),
    ("resampling", "No fresh test set"),
    ("book", "What only the book runs"),
    ("book.mnist", "The MNIST case study"),
    ("book.course", "The course: problem sets, quizzes, an exam and their checks"),
]

TITLES = {
    "heldout.book.claims": "The articles' claims, as the data file states them",
    "heldout.metrics.item_losses": "Per-item log loss and Brier loss",
    "heldout.accuracy.acceptance": "Acceptance testing",
    "heldout.accuracy.bounds": "Test set bounds",
    "heldout.accuracy.losses": "Bounded losses",
    "heldout.accuracy.lost": "The lost test set",
    "heldout.accuracy.posterior": "The Beta posterior",
    "heldout.accuracy.sizing": "Test set sizes",
    "heldout.accuracy.split": "The variational split",
    "heldout.book.chapter": "Chapter plumbing",
    "heldout.book.ledger": "The reproduction ledger",
    "heldout.book.ledger_checks": "The reproduction ledger's checks",
    "heldout.book.metric_coverage": "Coverage of the metric intervals",
    "heldout.book.judge_coverage": "Coverage of the judged-score intervals",
    "heldout.judged.ppi": "Prediction-powered inference",
    "heldout.judged.misclassification": "The Rogan-Gladen correction",
    "heldout.judged.judge_sizing": "Gold labels to collect",
    "heldout.book.mnist.data": "MNIST data",
    "heldout.book.course.problem_sets": "The six weekly problem sets",
    "heldout.book.course.quizzes": "The six weekly quizzes",
    "heldout.book.course.grading": "Checks a student runs, and the instructor grades with",
    "heldout.book.mnist.digit_pool": "Coverage on real digits",
    "heldout.book.mnist.kernels": "Kernel matrices for SVMs",
    "heldout.book.mnist.mnist_costs": "The MNIST jobs' costs on this machine",
    "heldout.book.mnist.models": "MNIST models",
    "heldout.book.mnist.qmnist": "MNIST writers and series",
    "heldout.book.mnist.schedule": "Plans for jobs on a few cores",
    "heldout.book.mnist.writer_leak": "Writer-disjoint splits of MNIST",
    "heldout.book.rerun": "Rerunning a chapter",
    "heldout.comparison.best": "The best of several models",
    "heldout.comparison.compare": "Comparing models",
    "heldout.comparison.multiple": "Every pair of models",
    "heldout.comparison.paired": "Two models on the same items",
    "heldout.comparison.predictions": "Predictions on one test set",
    "heldout.dependent.cluster_sizing": "Sizes with clusters",
    "heldout.dependent.clustered": "Clustered test items",
    "heldout.dependent.repeated": "Repeated samples per question",
    "heldout.dependent.strata": "Strata",
    "heldout.metrics.auc": "The AUC and DeLong's variance",
    "heldout.metrics.bootstrap": "The paired and the cluster BCa bootstrap",
    "heldout.metrics.estimate": "Metric intervals and their results",
    "heldout.metrics.evaluate": "Every metric of a predictions file",
    "heldout.metrics.fscore": "F1 and balanced accuracy",
    "heldout.metrics.multinomial": "Simultaneous intervals for a confusion-matrix row",
    "heldout.metrics.prediction_files": "Predictions files",
    "heldout.metrics.rates": "Rates on their own denominators",
    "heldout.metrics.regression": "Regression metrics",
    "heldout.metrics.scores": "Proper scores",
    "heldout.resampling.cv": "Comparing learners by cross-validation",
    "heldout.resampling.cv_interval": "Intervals for prediction error from cross-validation",
    "heldout.resampling.cv_scores": "Paired fold scores of two learners",
    "heldout.resampling.cv_simulation": "Type I error and power of the cross-validation tests",
    "heldout.resampling.reuse": "A holdout used too often",
}

HEAD = """# The `heldout` package

Everything the chapters compute is done by the `heldout` package, which ships with the
book and is installed with it (`pip install -e .` in a clone; `make book` and `make test`
do it for you). This page is generated from the package's docstrings when the book is
built, so it always describes the code that produced the numbers in the chapters. The
formulas are stated in each function's docstring together with the article (and, where
there is one, the classic paper) they come from.

The package is organised in *wings*, one per question a practitioner asks; each wing's
public functions can be imported from the wing itself (`from heldout.metrics import
auc_interval`). The book's own machinery (the ledger of the articles' claims, chapter
plumbing, the MNIST case study) sits apart in `heldout.book`, which no library wing
imports. Bad input raises `ValueError` with a message naming the argument; every function
accepts scalars or arrays unless it says otherwise. The command line `heldout` exposes the
same calculators (see the {doc}`guide`).

## `heldout`

```{eval-rst}
.. automodule:: heldout
```
"""

SEQUENTIAL = "## Label until sure: `heldout.sequential`\n\nConfidence sequences (valid at every sample size at once), sequential acceptance against a\nrequired accuracy, Wald's SPRT and the peeking simulations of {doc}`../notebooks/label_until_sure`.\n\n```{eval-rst}\n.. automodule:: heldout.sequential\n.. automodule:: heldout.sequential.confidence\n   :members:\n.. automodule:: heldout.sequential.betting\n.. automodule:: heldout.sequential.closed_form\n.. automodule:: heldout.sequential.mixture\n.. automodule:: heldout.sequential.decide\n   :members:\n.. automodule:: heldout.sequential.sprt\n   :members:\n.. automodule:: heldout.sequential.peeking\n   :members:\n```\n\n"

TAIL = "## The core: `heldout.config` and `heldout._checks`\n\nSettings, seeds and the input checks every wing uses.\n\n```{eval-rst}\n.. automodule:: heldout.config\n   :members:\n.. automodule:: heldout._checks\n   :members:\n```\n\n## The command line: `heldout.cli`\n\n```{eval-rst}\n.. automodule:: heldout.cli\n   :members: calculator, build_parser, main, run\n```\n\n### The calculators\n\nEach module below adds one or two commands to `heldout`; `heldout COMMAND --help` lists\ntheir options and outputs, and the {doc}`guide` shows each one at work.\n\n```{eval-rst}\n.. automodule:: heldout.cli.bound\n.. automodule:: heldout.cli.sizing\n.. automodule:: heldout.cli.split\n.. automodule:: heldout.cli.compare\n.. automodule:: heldout.cli.accept\n.. automodule:: heldout.cli.lost\n.. automodule:: heldout.cli.label\n.. automodule:: heldout.cli.cv_compare\n.. automodule:: heldout.cli.mnist\n.. automodule:: heldout.cli.clustered\n.. automodule:: heldout.cli.evaluate\n.. automodule:: heldout.cli.auc\n.. automodule:: heldout.cli.rerun\n```\n"


def _modules(wing: str) -> list[str]:
    package = importlib.import_module(f"heldout.{wing}")
    return sorted(
        f"heldout.{wing}.{info.name}"
        for info in pkgutil.iter_modules(package.__path__)
        if not info.name.startswith("_") and not info.ispkg
    )


def _title(name: str) -> str:
    if name in TITLES:
        return TITLES[name]
    doc = (importlib.import_module(name).__doc__ or name).strip().splitlines()[0]
    return doc.split(":")[0].rstrip(".")


def page() -> str:
    sys.path.insert(0, str(ROOT / "src"))
    out = [HEAD]
    for wing, heading in WINGS:
        if wing == "sequential":
            block = SEQUENTIAL.replace("## Label until sure", f"## {heading}", 1).rstrip()
            extra = [m for m in _modules(wing) if f".. automodule:: {m}\n" not in block + "\n"]
            lines = "".join(f".. automodule:: {m}\n   :members:\n" for m in extra)
            out.append(block.removesuffix("```") + lines + "```\n")
            continue
        level = "###" if wing == "book.mnist" else "##"
        sub = level + "#"
        out.append(
            f"{level} {heading}: `heldout.{wing}`\n\n```{{eval-rst}}\n.. automodule:: heldout.{wing}\n```\n"
        )
        for name in _modules(wing):
            out.append(
                f"{sub} {_title(name)}: `{name}`\n\n```{{eval-rst}}\n.. automodule:: {name}\n   :members:\n```\n"
            )
    out.append(TAIL)
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    text = page()
    if "--check" in sys.argv:
        sys.exit(0 if PAGE.read_text(encoding="utf-8") == text else 1)
    PAGE.write_text(text, encoding="utf-8")
