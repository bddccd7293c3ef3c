"""``heldout label``: label until sure — sequential acceptance on outcomes as they arrive."""

from __future__ import annotations

import sys

from heldout.cli import calculator, choice_option

_EPILOG = """\
Reads one outcome per line (1 = correct, 0 = wrong, or a score in [0, 1]) from FILE or,
with '-' or no FILE, from standard input as the lines arrive (a pipe may stay open).
Blank lines and lines starting with '#' are skipped.  The decision is checked after every
outcome (a confidence sequence allows it); every --batch outcomes (default 10) the command
prints n, the mean, the bounds [low, high] and the decision, and it stops reading at the
end of the batch in which the first decision came (n is then the outcome that decided):

  pass      low > required: the accuracy exceeds the requirement (wrong with probability
            at most --alpha, however often you look and whenever you stop)
  fail      high < required (wrong with probability at most --beta, default --alpha)
  continue  keep labelling

low and high are one-sided confidence sequences at levels alpha and beta (method
'betting' by default).  --pool N: the outcomes are a random-order sample without
replacement from a pool of N items, and the requirement is on the pool's accuracy.
--batch 1 reads, prints and stops one outcome at a time.
--json prints one object at the end: n (outcomes used), read (outcomes read), decision,
low, high (the bounds at n), method and the settings.
A bad line prints one message naming the line and exits with status 2.

example: heldout label --required 0.8 --alpha 0.01 outcomes.txt
         some_labelling_tool | heldout label --required 0.8 --alpha 0.01 -"""


def _lines(path: str):
    """Lines as they arrive, each at most ``MAX_LINE`` characters (``/dev/zero`` is refused)."""
    from heldout._files import line_of

    if path == "-":
        stream, source = sys.stdin, "standard input"
    else:
        try:
            stream = open(path, encoding="utf-8", errors="replace")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise ValueError(f"FILE {path!r} cannot be read: {exc.strerror}") from None
        source = f"FILE {path!r}"
    try:
        number = 0
        while True:
            number += 1
            line = line_of(stream, source, number)  # each line as it arrives (no read-ahead)
            if not line:
                return
            yield line
    finally:
        if stream is not sys.stdin:
            stream.close()


def _outcome(text: str, number: int) -> float | None:
    text = text.strip()
    if not text or text.startswith("#"):
        return None
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (0.0 <= value <= 1.0):
        raise ValueError(
            f"line {number}: expected an outcome in [0, 1] (0, 1 or a score), got {text!r}"
        )
    return value


def _run(args) -> dict:
    from heldout.sequential.decide import AcceptanceMonitor

    if args.batch < 1:
        raise ValueError(f"--batch must be at least 1, got {args.batch}")
    monitor = AcceptanceMonitor(
        args.required, args.alpha, beta=args.beta, method=args.method, pool=args.pool
    )
    state = monitor.result()
    pending: list[float] = []
    total = 0.0
    read = 0
    show = not args.json

    def flush():
        nonlocal state, total, read
        before = state.n
        state = monitor.update(pending)
        read += len(pending)
        total += sum(pending[: state.n - before])  # up to the decision, if one came
        pending.clear()
        if show:
            sys.stdout.write(
                f"n={state.n:<8d} mean={total / state.n:.4f}  "
                f"[{state.low:.4f}, {state.high:.4f}]  {state.decision}\n"
            )
            sys.stdout.flush()

    for number, line in enumerate(_lines(args.file), start=1):
        value = _outcome(line, number)
        if value is None:
            continue
        if args.pool is not None and read + len(pending) >= args.pool:
            raise ValueError(f"line {number}: more outcomes than the pool of {args.pool:,} items")
        pending.append(value)
        if len(pending) >= args.batch:
            flush()
            if state.decision != "continue":
                break
    if pending:
        flush()
    return {
        "n": state.n,
        "read": read,
        "decision": state.decision,
        "low": state.low,
        "high": state.high,
        "method": state.method,
        "required": state.required,
        "alpha": state.alpha,
        "beta": state.beta,
        "pool": args.pool,
    }


def register(top, size) -> None:
    """Add ``heldout label``."""
    p = calculator(
        top,
        "label",
        help="label until sure: pass, fail or continue after each batch of outcomes",
        func=_run,
        epilog=_EPILOG,
    )
    p.add_argument(
        "file",
        nargs="?",
        default="-",
        metavar="FILE|-",
        help="outcomes, one per line (default: standard input)",
    )
    p.add_argument("--required", type=float, required=True, help="required accuracy, in (0, 1)")
    p.add_argument(
        "--alpha", type=float, default=0.05, help="largest chance of a wrong pass (default 0.05)"
    )
    p.add_argument(
        "--beta", type=float, default=None, help="largest chance of a wrong fail (default: alpha)"
    )
    p.add_argument(
        "--batch", type=int, default=10, help="outcomes read between printed lines (default 10)"
    )
    p.add_argument(
        "--pool", type=int, default=None, help="size of a finite pool labelled without replacement"
    )
    choice_option(
        p,
        "--method",
        ["betting", "empirical-bernstein", "mixture", "hoeffding"],
        "betting",
        "confidence sequence (default betting)",
    )
