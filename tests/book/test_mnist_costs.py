"""Tests of heldout.book.mnist.mnist_costs: the cost formula from the data file, memory, kernel modes."""

from __future__ import annotations

import math
import tomllib
from importlib import resources

import numpy as np
import pytest

from heldout.book.mnist import kernels, mnist_costs
from heldout.book.mnist.mnist_costs import (
    Machine,
    job_memory,
    kernel_mode,
    mnist_jobs,
    network_threads,
)

GiB = 2**30
ALL = [j for j in mnist_costs.JOBS if j != "gram"]


def _raw():
    text = (
        resources.files("heldout.book.mnist")
        .joinpath("mnist_costs.toml")
        .read_text(encoding="utf-8")
    )
    return tomllib.loads(text)


def test_every_job_has_a_row_and_rows_are_sane():
    rows = _raw()["jobs"]
    for job in mnist_costs.JOBS:
        assert job in rows
    for name, row in rows.items():
        assert row["seconds"] > 0 and 0 <= row["parallel"] <= 1, name
        assert row["grows"] in ("n", "n2") and row["threads"] >= 1
        assert row.get("onednn", 1.0) >= 1.0


def test_estimate_follows_the_documented_formula():
    """T(t) = v [s (n/n_ref)^a (e/e_ref) ((1-f) + f/t) r + c], from the raw table."""
    raw = _raw()
    ref, row = raw["reference"], raw["jobs"]["cnn"]
    m = Machine(cores=2, memory=64 * GiB, avx512=False, speed=1.7)
    (cnn,) = mnist_jobs(["cnn"], 16_800, 4_200, 5, m)
    for t in (1, 2):
        amdahl = (1 - row["parallel"]) + row["parallel"] / t
        expect = 1.7 * (
            row["seconds"]
            * (16_800 / ref["n_train"])
            * (5 / ref["epochs"])
            * amdahl
            * row["onednn"]
            + row["startup"]
        )
        assert cnn.seconds[t] == pytest.approx(expect, rel=1e-12)
    # all pairs of digits: four times the time at twice the digits
    fast = Machine(cores=2, memory=64 * GiB, avx512=True)
    (knn_half,) = mnist_jobs(["knn"], 16_800, 4_200, 10, fast)
    (knn_full,) = mnist_jobs(["knn"], 33_600, 8_400, 10, fast)
    assert knn_full.seconds[1] == pytest.approx(4 * knn_half.seconds[1])
    # AVX-512 changes only the networks
    (xgb_a,) = mnist_jobs(["xgboost"], 33_600, 8_400, 10, fast)
    (xgb_b,) = mnist_jobs(["xgboost"], 33_600, 8_400, 10, m)
    assert xgb_b.seconds[1] == pytest.approx(1.7 * xgb_a.seconds[1])


def test_threads_and_groups_of_the_jobs():
    m = Machine(cores=4, memory=64 * GiB, avx512=True)
    jobs = {j.name: j for j in mnist_jobs(ALL, 33_600, 8_400, 10, m)}
    assert set(jobs) == set(mnist_costs.JOBS)  # gram added: both kernel SVMs share it
    assert sorted(jobs["linear_svc_raw"].seconds) == [1]  # liblinear: one thread
    assert sorted(jobs["cnn"].seconds) == [1, 2, 3, 4]
    assert jobs["svc_rbf"].after == ("gram",) and jobs["svc_poly3"].after == ("gram",)
    assert jobs["linear_svc_raw"].group == jobs["linear_svc_scaled"].group == "liblinear"
    for job in jobs.values():  # more threads are never estimated slower
        times = list(job.seconds.values())
        assert all(a >= b for a, b in zip(times, times[1:], strict=False))
    with pytest.raises(ValueError, match="names must be"):
        mnist_jobs(["gram"], 100, 20, 1, m)
    with pytest.raises(ValueError, match="mode"):
        mnist_jobs(["svc_rbf"], 100, 20, 1, m, mode="fast")


def test_memory_of_the_kernel_svms_and_the_modes():
    n, n_scored = 33_600, 8_400
    y = np.arange(n) % 10  # ten digits of 3,360 each
    pair = kernels.pair_kernel_bytes(y)
    assert pair == 8 * 6_720**2
    need = job_memory("svc_rbf", n, n_scored)
    # one pair's kernel matrix and the int32 dot products grouped by class, together
    assert need >= pair + kernels.class_gram_bytes(y)
    assert need < 8 * GiB - 2 * GiB  # a laptop's 8 GiB, with room for the other jobs
    own = job_memory("svc_rbf_own", n, n_scored)
    assert pair <= own < need
    assert kernel_mode(n, n_scored, need) == "shared"
    assert kernel_mode(n, n_scored, need - 1) == "own"
    assert kernel_mode(n, n_scored, need, both=False) == "own"
    assert kernel_mode(n, n_scored, pair) == "libsvm"  # no room beside one pair's matrix
    m = Machine(cores=2, memory=3 * GiB, avx512=True)
    jobs = {j.name: j for j in mnist_jobs(["svc_rbf", "svc_poly3"], n, n_scored, 10, m)}
    assert "gram" not in jobs and jobs["svc_rbf"].after == ()
    assert max(jobs["svc_rbf"].seconds) == 2  # each pair's own dot products, on threads
    # a job bigger than the machine is capped at the machine: it runs alone
    tiny = Machine(cores=2, memory=GiB, avx512=True)
    (svc,) = mnist_jobs(["svc_rbf"], n, n_scored, 10, tiny)
    assert svc.memory == GiB and max(svc.seconds) == 1  # libsvm's own kernel, one thread
    with pytest.raises(ValueError, match="name must be"):
        job_memory("lasso", n, n_scored)


def test_network_threads_ignore_speed_and_memory_and_fit_the_cores():
    base = network_threads(33_600, 8_400, 10, Machine(2, 20 * GiB, True))
    assert base == network_threads(33_600, 8_400, 10, Machine(2, 2 * GiB, True, speed=3.0))
    assert set(base) == {"dense_nn", "dense_nn_scaled", "cnn"}
    assert network_threads(33_600, 8_400, 10, Machine(1, GiB, False)) == dict.fromkeys(base, 1)
    # the dense networks hardly speed up on two threads: they fill gaps on one
    assert base["dense_nn"] == base["dense_nn_scaled"] == 1


def test_this_machine_and_probe():
    m = mnist_costs.this_machine(memory=5 * GiB)
    assert m.cores == mnist_costs.usable_cores() and m.memory == 5 * GiB and m.speed == 1.0
    assert isinstance(m.avx512, bool)
    speed = mnist_costs.measure_speed(1)
    assert 0 < speed < 1000 and math.isfinite(speed)
    with pytest.raises(ValueError, match="repeats"):
        mnist_costs.measure_speed(0)


def test_reference_machine_runs_every_job_on_one_thread():
    """What the appendix says of the machine the book was tuned on (from the data file)."""
    from heldout.book.mnist.schedule import plan

    m = Machine(cores=2, memory=math.inf, avx512=True)
    jobs = mnist_jobs(ALL, 33_600, 8_400, 10, m)
    p = plan(jobs, 2, tolerance=mnist_costs.PLAN_TOLERANCE)
    assert set(p.threads.values()) == {1}
    # the plan is close to the bound of all the work spread over both cores
    work = sum(j.seconds[1] for j in jobs)
    assert work / 2 <= p.makespan <= 1.05 * work / 2


def test_onednn_cap_in_the_environment_means_no_avx512(monkeypatch):
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX2")
    assert mnist_costs.has_avx512() is False
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX512_CORE")
    monkeypatch.setattr("builtins.open", _fake_cpuinfo("avx512f avx512bw avx512vl avx512dq"))
    assert mnist_costs.has_avx512() is True
    monkeypatch.setattr("builtins.open", _fake_cpuinfo("avx2 fma avx512f"))
    assert mnist_costs.has_avx512() is False  # AVX-512 foundation alone is not enough


def _fake_cpuinfo(flags):
    import io

    def fake(path, *args, **kwargs):
        assert path == "/proc/cpuinfo"
        return io.StringIO(f"processor : 0\nflags : fpu sse2 {flags}\n")

    return fake


def test_probed_seconds_from_a_measured_step():
    raw = _raw()["jobs"]["cnn"]
    m = Machine(cores=2, memory=GiB, avx512=False, speed=2.0)
    t = mnist_costs.probed_seconds("cnn", 0.05, 1_000, 500, 3, m, startup=[2], batch_size=100)
    one = 0.05 * (10 * 3 + 500 / 100 / 3)  # 10 steps an epoch, predictions a third of a step
    assert t[1] == pytest.approx(one)
    f = raw["parallel"]
    assert t[2] == pytest.approx(one * (1 - f + f / 2) + 2.0 * raw["startup"])
    with pytest.raises(ValueError, match="name"):
        mnist_costs.probed_seconds("xgboost", 0.05, 1_000, 500, 3, m)
    with pytest.raises(ValueError, match="step_seconds"):
        mnist_costs.probed_seconds("cnn", -1, 1_000, 500, 3, m)
    probe = mnist_costs.probe_job("cnn", m)
    assert probe.name == "cnn_probe" and sorted(probe.seconds) == [1]
