"""Write the two small inspect_ai logs of tests/data/llm/ with inspect_ai's mock model (offline).

Run from the repository root: ``python tests/data/llm/make_inspect_logs.py [FOLDER]``
(default ``tests/data/llm``).  Thirty questions about ten passages (three questions per
passage, the passage in each sample's metadata), three epochs each, graded by inspect_ai's
``match()`` scorer.  The mock model "answers" question ``i`` right with probability
``p_i`` (a fixed, seeded difficulty per question; the strong model's is higher), using
``mockllm``'s ``custom_outputs`` and a token count set on each output so that no tokenizer
is downloaded.  The tests also call :func:`write` in a temporary folder, so that a
change of inspect_ai's log format is noticed.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

QUESTIONS = 30
PASSAGE = 3  # questions per passage
EPOCHS = 3


def _difficulty(seed: int, shift: float) -> list[float]:
    gen = random.Random(seed)
    return [min(0.98, max(0.02, gen.betavariate(2, 2) + shift)) for _ in range(QUESTIONS)]


def write(folder, questions: int = QUESTIONS, epochs: int = EPOCHS) -> list[str]:
    """Run the mock model twice (a weak and a strong model); return the two log paths."""
    from inspect_ai import Epochs, Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import accuracy, match, stderr
    from inspect_ai.solver import generate

    dataset = [
        Sample(
            id=f"q{i:02d}", input=f"question {i}", target="yes", metadata={"passage": i // PASSAGE}
        )
        for i in range(questions)
    ]
    paths = []
    for name, shift, seed in (("weak", -0.15, 1), ("strong", 0.1, 2)):
        p = _difficulty(7, shift)
        gen = random.Random(seed)

        def answer(messages, tools, tool_choice, config, p=p, gen=gen):
            i = int(messages[-1].text.split()[-1])
            out = ModelOutput.from_content(
                model="mockllm", content="yes" if gen.random() < p[i] else "no"
            )
            out.usage = ModelUsage(input_tokens=3, output_tokens=1, total_tokens=4)
            return out

        task = Task(
            dataset=dataset,
            solver=generate(),
            scorer=match(),
            metrics=[accuracy(), stderr(cluster="passage")],
            epochs=Epochs(epochs, ["mean"]),
            name="passages",
        )
        model = get_model(f"mockllm/{name}", custom_outputs=answer)
        log = inspect_eval(
            task, model=model, log_dir=str(folder), display="none", max_connections=1
        )[0]
        if log.status != "success":
            raise RuntimeError(f"inspect_ai run failed: {log.error}")
        paths.append(log.location)
    return paths


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/data/llm")
    out.mkdir(parents=True, exist_ok=True)
    for path in write(out):
        print(path)
