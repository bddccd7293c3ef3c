"""Plans for running a set of jobs on a few cores: which job starts when, on how many threads.

A :class:`Job` has an estimated wall time for each thread count it can use, the memory
it holds while it runs, an optional *group* (jobs of one group never overlap, because
they share something that cannot be shared, such as a library's global random
generator) and the jobs it must wait for.  A :class:`Plan` gives each job a start time
and a thread count.

**How a plan is built.**  Every plan is a *list schedule* :cite:`graham1969bounds`:
the jobs are ranked, and at time 0 and whenever a job ends, every waiting job that can
start does start, in rank order, with its chosen thread count or, when fewer cores are
free, the largest of its thread counts that fits.  So no core idles while a waiting job
could run on it; a core idles only when every waiting job is held back by a job it must
wait for, by its group, by memory, or because it cannot run on the free cores.

:func:`plan` searches the ranks and thread counts: for each choice of thread counts
(all combinations when there are at most :data:`EXHAUSTIVE` of them, otherwise a
descent that changes one job's threads at a time), it ranks the jobs longest first
(Graham's LPT rule, which is within :math:`4/3` of the optimum for single-threaded jobs
:cite:`graham1969bounds`) and by the longest chain of work that follows each job, then
improves the better ranking by swapping pairs of jobs while the makespan drops.  Ties
go to the plan that uses fewer core-seconds, then to the one that starts long jobs
earlier (estimates err, and short jobs at the end even out the cores).  The search is a heuristic; the tests
compare it with a brute-force optimum on small cases.

The estimates are the caller's: :mod:`heldout.book.mnist.models` builds its jobs from a cost model
of the MNIST fits (:mod:`heldout.book.mnist.mnist_costs`) and replans whenever a job ends, with
the jobs that run taken as they are.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from heldout._result import Result, extra

__all__ = ["EXHAUSTIVE", "Job", "Plan", "Slot", "list_schedule", "plan", "plan_of"]

#: Largest number of thread-count combinations :func:`plan` tries one by one.
EXHAUSTIVE = 256

#: How many of the best thread-count choices :func:`plan` improves by swapping ranks.
SWAP_STARTS = 6

_EPS = 1e-9


def _finite_nonnegative(value, what: str) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None
    if not (math.isfinite(out) and out >= 0):
        raise ValueError(f"{what} must be finite and >= 0, got {value!r}")
    return out


@dataclass(frozen=True)
class Job:
    """One unit of work.

    Parameters
    ----------
    name : str
        Unique name.
    seconds : mapping of int to float
        Estimated wall time for each thread count the job can use (``{1: 90.0, 2: 50.0}``).
    memory : float
        Bytes held while the job runs (default 0).
    group : str, optional
        Jobs of the same group never run at the same time.
    after : tuple of str
        Names of jobs that must end before this one starts.

    Examples
    --------
    >>> job = Job("svc", {2: 50.0, 1: 90.0}, memory=4e9)
    >>> job.seconds, job.threads_for(1)
    ({1: 90.0, 2: 50.0}, [1])
    """

    name: str
    seconds: Mapping[int, float]
    memory: float = 0.0
    group: str | None = None
    after: tuple[str, ...] = ()

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.seconds, Mapping) or not self.seconds:
            raise ValueError(
                f"seconds of job {self.name!r} must map thread counts to seconds, got {self.seconds!r}"
            )
        clean = {}
        for t, s in self.seconds.items():
            if isinstance(t, bool) or not isinstance(t, int) or t < 1:
                raise ValueError(
                    f"seconds of job {self.name!r}: thread counts must be whole numbers >= 1, got {t!r}"
                )
            clean[t] = _finite_nonnegative(s, f"seconds of job {self.name!r}")
        object.__setattr__(self, "seconds", dict(sorted(clean.items())))
        memory = _finite_nonnegative(self.memory, f"memory of job {self.name!r}")
        object.__setattr__(self, "memory", memory)
        if isinstance(self.after, str):
            raise ValueError(f"after of job {self.name!r} must be a tuple of names, not a string")
        object.__setattr__(self, "after", tuple(self.after))

    def threads_for(self, cores: int) -> list[int]:
        """The thread counts this job can use on ``cores`` cores, fewest first."""
        return [t for t in self.seconds if t <= cores]


@dataclass(frozen=True)
class Slot(Result):
    """Where one job sits in a plan: its threads and its start and end times (seconds).

    ``trigger`` is the job whose end let this one start (None for a start at the
    plan's first instant).
    """

    job: str
    threads: int
    start: float
    end: float
    trigger: str | None = extra()

    @property
    def seconds(self) -> float:
        return self.end - self.start


@dataclass(frozen=True)
class Plan(Result):
    """A schedule of jobs on ``cores`` cores.

    Attributes
    ----------
    slots : tuple of Slot
        One per job, by start time.
    makespan : float
        Time from the plan's first start to its last end.
    idle_core_seconds : float
        ``cores * makespan`` minus the core-seconds the jobs use (threads times duration).
    critical_path : tuple of str
        The chain of jobs, each started when the one before it ended, that ends last:
        the jobs whose durations set the makespan.
    """

    slots: tuple[Slot, ...]
    makespan: float
    idle_core_seconds: float
    critical_path: tuple[str, ...]
    cores: int = extra(1)
    origin: float = extra(0.0)
    rank: tuple[str, ...] = extra(())

    def slot(self, job: str) -> Slot:
        """The slot of ``job``."""
        for s in self.slots:
            if s.job == job:
                return s
        raise ValueError(f"job must be one of the plan's jobs, got {job!r}")

    @property
    def threads(self) -> dict[str, int]:
        """Thread count of each job."""
        return {s.job: s.threads for s in self.slots}

    @property
    def core_seconds(self) -> float:
        """Sum over jobs of threads times duration."""
        return sum(s.threads * s.seconds for s in self.slots)


# --------------------------------------------------------------------------- checks
def _check_jobs(jobs, cores, memory, started, done):
    if isinstance(jobs, Job):
        jobs = [jobs]
    jobs = list(jobs)
    if not jobs:
        raise ValueError("jobs must hold at least one Job")
    for j in jobs:
        if not isinstance(j, Job):
            raise ValueError(f"jobs must be Job objects, got {j!r}")
    names = [j.name for j in jobs]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"jobs must have unique names; repeated: {dup}")
    if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
        raise ValueError(f"cores must be a whole number >= 1, got {cores!r}")
    try:
        memory = math.inf if memory is None else float(memory)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"memory must be a number of bytes or None, got {memory!r}") from None
    if not memory > 0:  # also catches NaN
        raise ValueError(f"memory must be > 0 bytes (or None for no limit), got {memory!r}")
    done = set(done)
    known = set(names) | done
    by_name = {j.name: j for j in jobs}
    for j in jobs:
        missing = [a for a in j.after if a not in known]
        if missing:
            raise ValueError(f"after of job {j.name!r} names unknown jobs {missing}")
        if not j.threads_for(cores):
            raise ValueError(
                f"job {j.name!r} needs at least {min(j.seconds)} threads, more than cores={cores}"
            )
        if j.memory > memory:
            raise ValueError(
                f"job {j.name!r} needs {j.memory:.3g} bytes of memory, more than memory={memory:.3g}"
            )
    # no cycles among the jobs still to run
    state: dict[str, int] = {}

    def visit(n, path):
        if state.get(n) == 2 or n not in by_name:
            return
        if state.get(n) == 1:
            raise ValueError(f"after makes a cycle: {' -> '.join([*path, n])}")
        state[n] = 1
        for a in by_name[n].after:
            visit(a, [*path, n])
        state[n] = 2

    for n in names:
        visit(n, [])
    started = dict(started or {})
    for n, s in started.items():
        if n not in by_name or not isinstance(s, Slot):
            raise ValueError(f"started must map names of jobs to Slot objects, got {n!r}: {s!r}")
    if sum(s.threads for s in started.values()) > cores:
        raise ValueError("started jobs use more threads than cores")
    return jobs, by_name, memory, started, done


# --------------------------------------------------------------------------- simulation
def _simulate(by_name, rank, threads, cores, memory, max_running, started, done, now):
    """The list schedule of the jobs in ``rank`` order; returns (slots, makespan end)."""
    free = cores
    mem = 0.0
    groups: set[str] = set()
    finished = set(done)
    running: list[tuple[float, str]] = []  # (end, name)
    slots: dict[str, Slot] = {}
    for name, s in started.items():
        job = by_name[name]
        end = max(s.end, now)
        slots[name] = Slot(name, s.threads, s.start, end, s.trigger)
        running.append((end, name))
        free -= s.threads
        mem += job.memory
        if job.group:
            groups.add(job.group)
    pending = [n for n in rank if n not in slots]
    t = now
    ended_now: list[str] = []
    while pending:
        for name in list(pending):
            if free == 0 or (max_running and len(running) >= max_running):
                break
            job = by_name[name]
            if any(a not in finished for a in job.after):
                continue
            if job.group and job.group in groups:
                continue
            if mem + job.memory > memory * (1 + _EPS):
                continue
            want = threads[name]
            if want > free:
                fits = [o for o in job.seconds if o <= free]
                if not fits:
                    continue
                want = fits[-1]
            trigger = None
            if ended_now:
                preds = [e for e in ended_now if e in job.after]
                trigger = (preds or ended_now)[0]
            end = t + job.seconds[want]
            slots[name] = Slot(name, want, t, end, trigger)
            running.append((end, name))
            pending.remove(name)
            free -= want
            mem += job.memory
            if job.group:
                groups.add(job.group)
        if not pending:
            break
        if not running:  # cannot happen after the checks; guard against an endless loop
            raise ValueError(f"jobs {pending} can never start (memory, group or after)")
        t = min(e for e, _ in running)
        ended_now = sorted(n for e, n in running if e <= t + _EPS)
        for n in ended_now:
            job = by_name[n]
            free += slots[n].threads
            mem -= job.memory
            if job.group:
                groups.discard(job.group)
            finished.add(n)
        running = [(e, n) for e, n in running if n not in ended_now]
    return slots


def _make_plan(slots: dict[str, Slot], cores: int, origin: float, rank) -> Plan:
    ordered = tuple(sorted(slots.values(), key=lambda s: (s.start, s.job)))
    end = max(s.end for s in ordered)
    makespan = end - origin
    used = sum(s.threads * (s.end - max(s.start, origin)) for s in ordered)
    path = []
    last = min(ordered, key=lambda s: (-s.end, s.job))
    seen = set()
    while last is not None and last.job not in seen:
        seen.add(last.job)
        path.append(last.job)
        last = slots.get(last.trigger) if last.trigger else None
    return Plan(
        slots=ordered,
        makespan=makespan,
        idle_core_seconds=max(0.0, cores * makespan - used),
        critical_path=tuple(reversed(path)),
        cores=cores,
        origin=origin,
        rank=tuple(rank),
    )


def plan_of(slots: Sequence[Slot], cores: int, origin: float | None = None) -> Plan:
    """The :class:`Plan` made of given slots (for example, of what a run actually did).

    The makespan runs from ``origin`` (default: the first start) to the last end, the
    idle core-seconds are ``cores`` times that minus the jobs' core-seconds, and the
    critical path follows each slot's ``trigger`` back from the last job to end.

    Examples
    --------
    >>> p = plan_of([Slot("a", 2, 0.0, 3.0), Slot("b", 1, 3.0, 5.0, "a")], cores=2)
    >>> p.makespan, p.idle_core_seconds, p.critical_path
    (5.0, 2.0, ('a', 'b'))
    """
    slots = list(slots)
    if not slots or not all(isinstance(s, Slot) for s in slots):
        raise ValueError("slots must be a non-empty sequence of Slot objects")
    if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
        raise ValueError(f"cores must be a whole number >= 1, got {cores!r}")
    by_job = {s.job: s for s in slots}
    if len(by_job) != len(slots):
        raise ValueError("slots must name each job once")
    first = min(s.start for s in slots)
    return _make_plan(by_job, cores, first if origin is None else float(origin), ())


def list_schedule(
    jobs: Sequence[Job],
    rank: Sequence[str],
    threads: Mapping[str, int],
    cores: int,
    memory: float | None = None,
    *,
    max_running: int | None = None,
    started: Mapping[str, Slot] | None = None,
    done: Collection[str] = (),
    now: float = 0.0,
) -> Plan:
    """The list schedule of ``jobs`` taken in the order ``rank`` with the given thread counts.

    At ``now`` and whenever a job ends, each waiting job, in rank order, starts if the
    jobs it waits for have ended, no job of its group runs, its memory fits and some
    of its thread counts fit on the free cores: it gets ``threads[name]`` threads, or
    the largest of its counts that fits.  At most ``max_running`` jobs run at once
    (default: no limit).  ``started`` holds jobs already running (their expected end
    in ``Slot.end``); ``done`` names jobs already finished.

    Examples
    --------
    >>> jobs = [Job("a", {1: 4.0}), Job("b", {1: 3.0}), Job("c", {1: 2.0, 2: 1.2})]
    >>> p = list_schedule(jobs, ["a", "b", "c"], {"a": 1, "b": 1, "c": 2}, cores=2)
    >>> [(s.job, s.threads, s.start, s.end) for s in p.slots]
    [('a', 1, 0.0, 4.0), ('b', 1, 0.0, 3.0), ('c', 1, 3.0, 5.0)]
    >>> p.makespan, p.idle_core_seconds, p.critical_path
    (5.0, 1.0, ('b', 'c'))
    """
    jobs, by_name, memory, started, done = _check_jobs(jobs, cores, memory, started, done)
    rank = list(rank)
    if sorted(rank) != sorted(by_name):
        raise ValueError("rank must name every job exactly once")
    th = {}
    for j in jobs:
        t = threads.get(j.name, j.threads_for(cores)[0])
        if t not in j.seconds or t > cores:
            raise ValueError(
                f"threads of job {j.name!r} must be one of {j.threads_for(cores)}, got {t!r}"
            )
        th[j.name] = t
    mr = _max_running(max_running)
    origin = min([now, *(s.start for s in started.values())])
    slots = _simulate(by_name, rank, th, cores, memory, mr, started, done, now)
    return _make_plan(slots, cores, origin, rank)


def _max_running(max_running):
    if max_running is None:
        return 0
    if isinstance(max_running, bool) or not isinstance(max_running, int) or max_running < 1:
        raise ValueError(f"max_running must be a whole number >= 1 or None, got {max_running!r}")
    return max_running


# --------------------------------------------------------------------------- search
def plan(
    jobs: Sequence[Job],
    cores: int,
    memory: float | None = None,
    *,
    max_running: int | None = None,
    fixed_threads: Mapping[str, int] | None = None,
    started: Mapping[str, Slot] | None = None,
    done: Collection[str] = (),
    now: float = 0.0,
    tolerance: float = 0.0,
) -> Plan:
    """A short list schedule of ``jobs`` on ``cores`` cores and ``memory`` bytes.

    Searches thread counts and ranks as the module docstring describes and returns
    the plan with the smallest makespan (then the fewest core-seconds).

    Parameters
    ----------
    jobs : sequence of Job
    cores : int
        Cores available.
    memory : float, optional
        Bytes available to the jobs together (default: no limit).  Jobs whose memory
        adds up to more never run at the same time; a job that needs more on its own
        is an error.
    max_running : int, optional
        At most this many jobs at once (default: no limit beyond the cores).
    fixed_threads : mapping, optional
        Thread counts that are not to be searched (``{"cnn": 1}``).
    started, done, now
        Jobs already running (name to :class:`Slot`, with expected ends), names of jobs
        already finished, and the current time: for replanning while jobs run.
    tolerance : float
        Makespans that differ by less than this fraction of a lower bound on the
        makespan count as equal, so that the tie-breaks (fewer core-seconds, then the
        longest-first ranking) decide between them (default 0: exact comparison).

    Examples
    --------
    A long job that scales well gets both cores when it would otherwise set the
    makespan alone:

    >>> jobs = [Job("long", {1: 10.0, 2: 5.5}), Job("x", {1: 2.0}), Job("y", {1: 2.0})]
    >>> p = plan(jobs, cores=2)
    >>> p.threads, p.makespan
    ({'long': 2, 'x': 1, 'y': 1}, 7.5)
    >>> p.critical_path
    ('long', 'x')
    """
    jobs, by_name, memory, started, done = _check_jobs(jobs, cores, memory, started, done)
    mr = _max_running(max_running)
    try:
        tolerance = float(tolerance)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"tolerance must be a number >= 0, got {tolerance!r}") from None
    if not (0 <= tolerance < 1):
        raise ValueError(f"tolerance must be in [0, 1), got {tolerance!r}")
    fixed = dict(fixed_threads or {})
    for n, t in fixed.items():
        if n in by_name and t not in by_name[n].threads_for(cores):
            raise ValueError(
                f"fixed_threads of job {n!r} must be one of {by_name[n].threads_for(cores)}, got {t!r}"
            )
    todo = [j for j in jobs if j.name not in started]
    names = [j.name for j in todo]
    origin = min([now, *(s.start for s in started.values())])
    if not names:  # everything already runs: the plan is what runs
        slots = _simulate(by_name, [], {}, cores, memory, mr, started, done, now)
        return _make_plan(slots, cores, origin, [])
    options = {n: [fixed[n]] if n in fixed else by_name[n].threads_for(cores) for n in names}
    lower = max(  # no plan is shorter: all the work spread evenly, or the longest job
        sum(min(t * x for t, x in by_name[n].seconds.items() if t <= cores) for n in names) / cores,
        max(min(x for t, x in by_name[n].seconds.items() if t <= cores) for n in names),
    )
    step = tolerance * lower
    cache: dict[tuple, tuple] = {}

    def evaluate(th: dict[str, int], rank: list[str], rule: int):
        """Score (makespan, core-seconds, ranking rule) and slots of one candidate."""
        key = (tuple(th[n] for n in names), tuple(rank))
        if key not in cache:
            slots = _simulate(by_name, rank, th, cores, memory, mr, started, done, now)
            end = max(x.end for x in slots.values()) - now
            span = round(end, 6) if step <= 0 else math.floor(round(end, 6) / step)
            used = round(sum(x.threads * x.seconds for x in slots.values()), 6)
            cache[key] = ((span, used, rule), key, slots)
        return cache[key]

    def ranked(th):
        """The best of the ranking rules for these thread counts (ties: LPT, work, chain)."""
        rules = _rules(by_name, names, th)
        return min((evaluate(th, r, i) for i, r in enumerate(rules)), key=lambda c: c[0])

    if math.prod(len(o) for o in options.values()) <= EXHAUSTIVE:
        results = [
            ranked(dict(zip(names, choice, strict=True)))
            for choice in itertools.product(*(options[n] for n in names))
        ]
    else:  # descent: change one job's threads at a time, from fewest and from most
        results = []
        for seed in ({n: o[0] for n, o in options.items()}, {n: o[-1] for n, o in options.items()}):
            current = ranked(seed)
            results.append(current)
            improved = True
            while improved:
                improved = False
                here = dict(zip(names, current[1][0], strict=True))
                for n in names:
                    for t in options[n]:
                        if t != here[n]:
                            cand = ranked({**here, n: t})
                            results.append(cand)
                            if cand[0] < current[0]:
                                current, here, improved = cand, {**here, n: t}, True
    # local search on the rankings of the most promising thread counts: swap two jobs or
    # move one, while the plan gets shorter (or as short with fewer core-seconds)
    results.sort(key=lambda c: c[0])
    best = results[0]
    tried: set[tuple] = set()
    for first in results:
        if len(tried) >= SWAP_STARTS:
            break
        if first[1][0] in tried:
            continue
        tried.add(first[1][0])
        th = dict(zip(names, first[1][0], strict=True))
        for rule, rank in enumerate(_rules(by_name, names, th)):
            current = evaluate(th, rank, rule)
            improved = True
            while improved:
                improved = False
                for cand_rank in _neighbours(rank):
                    cand = evaluate(th, cand_rank, 3)
                    if cand[0][:2] < current[0][:2]:
                        current, rank, improved = cand, cand_rank, True
                        break
            if current[0] < best[0]:
                best = current
    return _make_plan(best[2], cores, origin, best[1][1])


def _rules(by_name, names, th) -> list[list[str]]:
    """Rankings: longest first (LPT), most core-seconds first, longest chain first."""
    dur = {n: by_name[n].seconds[th[n]] for n in names}
    tail = _tails(by_name, names, dur)
    return [
        sorted(names, key=lambda n: (-dur[n], n)),
        sorted(names, key=lambda n: (-th[n] * dur[n], -dur[n], n)),
        sorted(names, key=lambda n: (-tail[n], -dur[n], n)),
    ]


def _neighbours(rank: list[str]):
    """Rankings one move away: two jobs swapped, or one job moved earlier."""
    for i, k in itertools.combinations(range(len(rank)), 2):
        swapped = rank.copy()
        swapped[i], swapped[k] = swapped[k], swapped[i]
        yield swapped
        if k > i + 1:
            moved = rank.copy()
            moved.insert(i, moved.pop(k))
            yield moved


def _tails(by_name, names, dur) -> dict[str, float]:
    """Each job's duration plus the longest chain of jobs that must wait for it."""
    after_me: dict[str, list[str]] = {n: [] for n in names}
    for n in names:
        for a in by_name[n].after:
            if a in after_me:
                after_me[a].append(n)
    tail: dict[str, float] = {}

    def get(n):
        if n not in tail:
            tail[n] = dur[n] + max((get(m) for m in after_me[n]), default=0.0)
        return tail[n]

    for n in names:
        get(n)
    return tail
