"""What the MNIST experiment's fits cost on this machine: jobs for :mod:`heldout.book.mnist.schedule`.

Our way of running the article's MNIST comparison (:mod:`heldout.book.mnist.models`) splits it
into *jobs*: each model, the neighbour query shared by every k (``knn``), and the
matrix of dot products shared by the two kernel SVMs (``gram``).  The plan that runs
them is made when the experiment starts, from what this machine is:

* its **cores** (the CPUs this process may run on);
* its **memory** (what the system can still give, less a margin): the kernel SVMs
  share one set of dot products when it fits beside a pair of classes' kernel matrix,
  compute each pair's dot products when only that matrix fits, and leave the kernel to
  libsvm when not even that fits; jobs whose memory adds up to more than there is never run together;
* its **instruction set**: TensorFlow's oneDNN kernels use AVX-512 where the CPU has it
  and fall back to AVX2 where it does not, which slows the networks about twice as much
  as the other jobs (:func:`has_avx512`);
* estimated **job costs**: the time each job took on the reference machine (a data
  file, ``mnist_costs.toml``), scaled to the number of digits and epochs, with a share
  of that time that more threads divide (Amdahl's law :cite:`amdahl1967`), and scaled
  as a whole by a short measured probe of the machine's speed (:func:`measure_speed`).

With :math:`s` the reference seconds on one thread, :math:`f` the parallel share,
:math:`n` the training digits, :math:`e` the epochs and :math:`v` the machine's speed
factor, a job on :math:`t` threads is estimated to take

.. math::

   T(t) = v \\left[ s \\left(\\frac{n}{n_\\text{ref}}\\right)^{a}
          \\left(\\frac{e}{e_\\text{ref}}\\right)^{b} \\left((1-f) + \\frac{f}{t}\\right)
          r + c \\right]

with :math:`a` = 1 or 2 (one pass over the digits, or all pairs), :math:`b` = 1 for the
networks and 0 otherwise, :math:`r` the oneDNN factor on a CPU without AVX-512 (1
otherwise) and :math:`c` a fixed start-up time.  Only the ratios between jobs decide the
plan: a machine that is uniformly slower gets the same plan, so the probe only makes the
printed estimates comparable with the measured times.

The networks' predictions depend on their thread count (TensorFlow splits its sums
differently), so their thread counts do not depend on which models happen to be fitted:
:func:`network_threads` takes them from the plan of the whole experiment on a machine
like this one (same cores and instruction set, memory not limiting).  A network refitted
alone gets the threads it had in the whole experiment, and so the same predictions.  The
exception is a long convnet fit: :mod:`heldout.book.mnist.models` measures its seconds per training
step first (:func:`probe_job`, :func:`probed_seconds`) and lets the plan choose its
threads from that measurement.
"""

from __future__ import annotations

import functools
import math
import os
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from heldout._result import Result
from heldout.book.mnist.schedule import Job, plan

__all__ = [
    "GROUPS",
    "JOBS",
    "MARGIN",
    "Machine",
    "PLAN_TOLERANCE",
    "available_memory",
    "has_avx512",
    "job_memory",
    "kernel_mode",
    "measure_speed",
    "mnist_jobs",
    "network_threads",
    "probe_job",
    "probed_seconds",
    "this_machine",
    "usable_cores",
]

DATA_FILE = "mnist_costs.toml"

#: The jobs of our way: the models (the neighbour sweep is one job, ``knn``) and ``gram``.
JOBS = (
    "linear_svc_raw",
    "linear_svc_scaled",
    "gram",
    "svc_rbf",
    "svc_poly3",
    "dense_nn",
    "dense_nn_scaled",
    "cnn",
    "knn",
    "xgboost",
)

#: Jobs that must not overlap: liblinear seeds one global random generator per fit.
GROUPS = {"linear_svc_raw": "liblinear", "linear_svc_scaled": "liblinear"}

#: Memory left to the rest of the system when the plan is made.
MARGIN = 2**30

_NETWORKS = ("dense_nn", "dense_nn_scaled", "cnn")
_KERNEL_SVMS = ("svc_rbf", "svc_poly3")


@functools.cache
def _table() -> dict:
    text = resources.files("heldout.book.mnist").joinpath(DATA_FILE).read_text(encoding="utf-8")
    data = tomllib.loads(text)
    for name, row in data["jobs"].items():
        missing = {"seconds", "parallel", "threads", "grows"} - set(row)
        if missing or row["grows"] not in ("n", "n2") or not 0 <= row["parallel"] <= 1:
            raise ValueError(f"{DATA_FILE}: job {name!r} is incomplete or out of range")
    return data


@dataclass(frozen=True)
class Machine(Result):
    """What the plan knows of the machine.

    Attributes
    ----------
    cores : int
        CPUs this process may run on.
    memory : float
        Bytes the jobs may use together (available memory less :data:`MARGIN`).
    avx512 : bool
        Whether TensorFlow's oneDNN kernels can use AVX-512 here.
    speed : float
        Seconds here per second on the reference machine (1.0 when not measured).
    """

    cores: int
    memory: float
    avx512: bool
    speed: float = 1.0


def has_avx512() -> bool:
    """Whether oneDNN's ``avx512_core`` kernels can run here.

    False when the environment caps oneDNN below AVX-512 (``ONEDNN_MAX_CPU_ISA`` set
    to ``SSE41``, ``AVX``, ``AVX2`` or one of the ``AVX2_*`` levels: TensorFlow's
    worker processes inherit it, which also lets a machine with AVX-512 stand in for
    one without); otherwise whether the CPU has the AVX-512 subsets those kernels
    need, from the flags in ``/proc/cpuinfo`` (Linux; elsewhere the reference
    machine's answer, True).

    Examples
    --------
    >>> isinstance(has_avx512(), bool)
    True
    """
    cap = os.environ.get("ONEDNN_MAX_CPU_ISA", "").strip().upper()
    if cap in ("SSE41", "AVX") or cap.startswith("AVX2"):
        return False
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags
    except OSError:
        pass
    return True


def available_memory() -> float | None:
    """Bytes the system can still give (Linux ``MemAvailable``), or None if unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return float(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        return float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def usable_cores() -> int:
    """CPUs this process may run on (its affinity mask where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def measure_speed(repeats: int = 5) -> float:
    """Seconds here per second on the reference machine, from a probe of about 0.1 s.

    The probe multiplies two 600 x 784 matrices on one thread and takes the
    exponential of a million numbers (the kinds of work of the kernel SVMs), the best
    of ``repeats`` runs; the ratio to the reference machine's time for the same probe
    (``probe_seconds`` in the data file) is the speed factor.  It is measured under
    whatever load the machine has, which is what the jobs will meet.

    Examples
    --------
    >>> 0 < measure_speed(1) < 100
    True
    """
    import numpy as np
    from threadpoolctl import threadpool_limits

    from heldout._checks import as_count

    repeats = int(as_count(repeats, "repeats", minimum=1))
    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, size=(600, 784)).astype(np.float64)
    b = np.ascontiguousarray(a.T)
    x = rng.normal(size=1_000_000)
    best = math.inf
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(repeats):
            t0 = time.perf_counter()
            a @ b
            np.exp(x)
            best = min(best, time.perf_counter() - t0)
    return best / _table()["reference"]["probe_seconds"]


def this_machine(*, speed: float | None = 1.0, memory: float | None = None) -> Machine:
    """The machine this process runs on.

    ``speed=None`` measures the speed factor (:func:`measure_speed`); ``memory`` (bytes
    the jobs may use) defaults to the available memory less :data:`MARGIN`.

    Examples
    --------
    >>> m = this_machine()
    >>> m.cores >= 1 and m.memory > 0 and m.speed == 1.0
    True
    """
    if memory is None:
        free = available_memory()
        memory = max(free - MARGIN, 2**28) if free is not None else math.inf
    return Machine(
        cores=usable_cores(),
        memory=float(memory),
        avx512=has_avx512(),
        speed=measure_speed() if speed is None else float(speed),
    )


# --------------------------------------------------------------------------- jobs
def job_memory(
    name: str, n_train: int, n_scored: int, *, threads: int = 1, features: int = 784
) -> float:
    """Bytes a job holds while it runs (a generous estimate; the kernel SVMs dominate).

    The kernel SVMs are fitted one pair of classes at a time
    (:func:`heldout.book.mnist.kernels.fit_kernel_svm`): each thread holds one pair's
    float64 kernel matrix (a pair of MNIST's ten digits is under a quarter of the
    training digits); the shared dot products grouped by class
    (:func:`heldout.book.mnist.kernels.class_gram`, int32) take about :math:`2.2 n^2`
    bytes; predicting holds a chunk of scored rows against at most every training digit,
    and one buffer per thread.  A network's process about 1.5 GiB besides its data.

    Examples
    --------
    >>> round(job_memory("svc_rbf", 33_600, 8_400) / 2**30, 1)  # pair kernel, dot products, chunk
    3.4
    """
    from heldout.book.mnist.kernels import PREDICT_ROWS

    _check_job(name)
    x64 = 8.0 * n_train * features
    pair = 8.0 * (n_train / 4) ** 2 * threads
    gram = 2.2 * n_train**2
    block = 8.0 * 1024 * n_train * threads
    predict = 8.0 * min(PREDICT_ROWS, n_scored // 2 + 1) * n_train * (1 + threads / 4)
    base = name.removesuffix("_own").removesuffix("_libsvm")
    if name == "gram":
        return gram + 2 * x64 + block
    if name in _KERNEL_SVMS:
        return pair + gram + predict + x64
    if name.endswith("_own"):
        return pair + predict + 2 * x64
    if name.endswith("_libsvm"):
        return 2.0**30 + 2 * x64
    if base in _NETWORKS:
        return 1.5 * 2**30 + x64
    if base.startswith("linear_svc"):
        return 3 * x64
    return 2 * x64  # knn, xgboost


def _check_job(name):
    rows = _table()["jobs"]
    if name not in rows:
        raise ValueError(f"name must be one of the jobs {', '.join(rows)}; got {name!r}")


def kernel_mode(n_train: int, n_scored: int, memory: float, both: bool = True) -> str:
    """How the kernel SVMs get their kernel with ``memory`` bytes to spare.

    ``"shared"`` (one set of dot products, grouped by class, for both kernels, when both
    are fitted and it fits beside a pair's kernel matrix), ``"own"`` (each SVM computes
    the dot products of each pair of classes when it fits that pair) or ``"libsvm"``
    (libsvm computes each kernel value itself: slow, same predictions).

    Examples
    --------
    >>> [kernel_mode(33_600, 8_400, m * 2**30) for m in (8, 2, 1)]
    ['shared', 'own', 'libsvm']
    """
    if both and memory >= job_memory("svc_rbf", n_train, n_scored):
        return "shared"
    if memory >= job_memory("svc_rbf_own", n_train, n_scored):
        return "own"
    return "libsvm"


def _seconds(row: dict, ref: dict, n_train: int, epochs: int, machine: Machine, cores: int):
    size = (n_train / ref["n_train"]) ** (2 if row["grows"] == "n2" else 1)
    if row.get("epochs", False):
        size *= epochs / ref["epochs"]
    isa = row.get("onednn", 1.0) if not machine.avx512 else 1.0
    f = row["parallel"]
    top = max(1, min(cores, int(row["threads"])))
    return {
        t: machine.speed * (row["seconds"] * size * isa * ((1 - f) + f / t) + row.get("startup", 0))
        for t in range(1, top + 1)
    }


def mnist_jobs(
    names: Sequence[str],
    n_train: int,
    n_scored: int,
    epochs: int,
    machine: Machine,
    *,
    mode: str | None = None,
) -> list[Job]:
    """The jobs that fit the models ``names`` (from :data:`JOBS`, without ``gram``).

    The kernel SVMs follow ``mode`` (default :func:`kernel_mode` of the machine's
    memory): with ``"shared"`` a ``gram`` job is added and both SVMs wait for it; the
    SVMs' costs and memory are those of the mode.  A job's memory is capped at the
    machine's, so that a job too big for the machine runs alone instead of not at all.  The linear SVMs share a group (one
    at a time).  Thread counts run from 1 to the machine's cores, or 1 for the
    single-threaded libraries.

    Examples
    --------
    >>> m = Machine(cores=2, memory=20 * 2**30, avx512=True)
    >>> jobs = mnist_jobs(["svc_rbf", "svc_poly3", "cnn"], 33_600, 8_400, 10, m)
    >>> [(j.name, sorted(j.seconds), j.after) for j in jobs]
    [('gram', [1, 2], ()), ('svc_rbf', [1, 2], ('gram',)), ('svc_poly3', [1, 2], ('gram',)), ('cnn', [1, 2], ())]
    """
    from heldout._checks import as_count

    n_train = int(as_count(n_train, "n_train", minimum=1))
    n_scored = int(as_count(n_scored, "n_scored", minimum=0))
    epochs = int(as_count(epochs, "epochs", minimum=1))
    data = _table()
    ref = data["reference"]
    names = list(names)
    for n in names:
        if n not in JOBS or n == "gram":
            raise ValueError(
                f"names must be jobs from {', '.join(j for j in JOBS if j != 'gram')}; got {n!r}"
            )
    svms = [n for n in names if n in _KERNEL_SVMS]
    if mode is None:
        mode = kernel_mode(n_train, n_scored, machine.memory, both=len(svms) > 1)
    if mode not in ("shared", "own", "libsvm"):
        raise ValueError(f"mode must be 'shared', 'own' or 'libsvm', got {mode!r}")
    if mode == "shared" and len(svms) < 2:
        mode = "own"
    jobs = []
    if svms and mode == "shared":
        names = ["gram", *names]
    for n in names:
        row_name = n if n not in _KERNEL_SVMS or mode == "shared" else f"{n}_{mode}"
        row = data["jobs"][row_name]
        seconds = _seconds(row, ref, n_train, epochs, machine, machine.cores)
        # a job that needs more than there is still runs, alone (the kernel SVMs then
        # check again when they start and fall back to libsvm's own kernel)
        memory = min(
            max(job_memory(row_name, n_train, n_scored, threads=t) for t in seconds),
            machine.memory,
        )
        after = ("gram",) if n in _KERNEL_SVMS and mode == "shared" else ()
        jobs.append(Job(n, seconds, memory=memory, group=GROUPS.get(n), after=after))
    return jobs


def probed_seconds(
    name: str,
    step_seconds: float,
    n_train: int,
    n_scored: int,
    epochs: int,
    machine: Machine,
    *,
    startup: Sequence[int] = (),
    batch_size: int = 128,
) -> dict[int, float]:
    """A network's estimated times from its measured seconds per training step.

    One thread: ``step_seconds`` times the steps of the fit (``ceil(n_train /
    batch_size)`` per epoch) plus the predictions (a forward pass, about a third of a
    training step per digit); more threads divide the table's parallel share of it
    (Amdahl's law, as in :func:`mnist_jobs`); the thread counts in ``startup`` pay the
    table's start-up time (a new worker process importing TensorFlow).

    Examples
    --------
    >>> m = Machine(cores=2, memory=2**34, avx512=True)
    >>> t = probed_seconds("cnn", 0.03, 33_600, 8_400, 10, m)
    >>> round(t[1], 1), t[2] < t[1]
    (79.6, True)
    """
    from heldout._checks import as_count, as_positive

    row = _table()["jobs"].get(name)
    if name not in _NETWORKS or row is None:
        raise ValueError(f"name must be one of {', '.join(_NETWORKS)}; got {name!r}")
    step = float(as_positive(step_seconds, "step_seconds"))
    n_train = int(as_count(n_train, "n_train", minimum=1))
    n_scored = int(as_count(n_scored, "n_scored", minimum=0))
    epochs = int(as_count(epochs, "epochs", minimum=1))
    batch = int(as_count(batch_size, "batch_size", minimum=1))
    one = step * (math.ceil(n_train / batch) * epochs + n_scored / batch / 3)
    f = row["parallel"]
    top = max(1, min(machine.cores, int(row["threads"])))
    return {
        t: one * ((1 - f) + f / t) + (machine.speed * row.get("startup", 0) if t in startup else 0)
        for t in range(1, top + 1)
    }


def probe_job(name: str, machine: Machine, memory: float = 0.0) -> Job:
    """The job that measures a network's seconds per step before the network is planned.

    It runs on one thread in a worker process (which the network reuses if it gets one
    thread too) and is estimated at the table's start-up time plus two seconds.
    """
    row = _table()["jobs"][name]
    return Job(f"{name}_probe", {1: machine.speed * (row.get("startup", 0) + 2.0)}, memory=memory)


def network_threads(n_train: int, n_scored: int, epochs: int, machine: Machine) -> dict[str, int]:
    """The networks' thread counts in the plan of the whole experiment on this machine.

    Plans every job of :data:`JOBS` with the machine's cores and instruction set (speed
    1, memory not limiting, the Gram matrix shared) and returns the thread count of
    each network.  A network refitted on its own keeps this count, and so the
    predictions it had in the whole experiment.

    Examples
    --------
    >>> network_threads(33_600, 8_400, 10, Machine(cores=1, memory=1e9, avx512=True))
    {'dense_nn': 1, 'dense_nn_scaled': 1, 'cnn': 1}
    """
    return dict(_network_threads(n_train, n_scored, epochs, machine.cores, machine.avx512))


@functools.lru_cache(maxsize=32)
def _network_threads(n_train, n_scored, epochs, cores, avx512) -> tuple:
    canonical = Machine(cores=cores, memory=math.inf, avx512=avx512)
    jobs = mnist_jobs(
        [j for j in JOBS if j != "gram"], n_train, n_scored, epochs, canonical, mode="shared"
    )
    p = plan(jobs, canonical.cores, tolerance=PLAN_TOLERANCE)
    return tuple((n, p.threads[n]) for n in _NETWORKS)


#: Makespans within this fraction of each other count as equal when plans are compared
#: (the estimates are not more precise): the plan with fewer core-seconds, then the one
#: closest to longest-first, is taken.
PLAN_TOLERANCE = 0.05
