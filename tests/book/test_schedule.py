"""Tests of heldout.book.mnist.schedule on synthetic job sets (no MNIST): optimality, no idle core, limits."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from heldout.book.mnist.schedule import Job, Slot, list_schedule, plan, plan_of

EPS = 1e-7


# --------------------------------------------------------------------------- brute force
def _feasible(job, threads, start, placed, by_name, cores, memory):
    """Can ``job`` run on ``threads`` threads from ``start`` beside the jobs ``placed``?"""
    end = start + job.seconds[threads]
    points = {start, *(s for s, e, _, _ in placed if start <= s < end)}
    for p in points:
        active = [(n, t) for s, e, n, t in placed if s <= p < e]
        if sum(t for _, t in active) + threads > cores:
            return False
        if sum(by_name[n].memory for n, _ in active) + job.memory > memory:
            return False
        if job.group and any(by_name[n].group == job.group for n, _ in active):
            return False
    return True


def brute_force(jobs, cores, memory=math.inf):
    """The optimal makespan, by enumeration.

    Every order of the jobs and every thread count of each; each job in turn is placed
    at its earliest feasible start given those placed before it (the serial schedule
    generation scheme, whose schedules, over all orders, include an optimal one for the
    makespan, delays included), checked against cores, memory, groups and precedence.
    """
    by_name = {j.name: j for j in jobs}
    names = list(by_name)
    options = [[t for t in by_name[n].seconds if t <= cores] for n in names]
    best = math.inf
    for choice in itertools.product(*options):
        th = dict(zip(names, choice, strict=True))
        for order in itertools.permutations(names):
            placed, ends = [], {}
            for n in order:
                job = by_name[n]
                if any(a not in ends for a in job.after):
                    break
                ready = max([ends[a] for a in job.after], default=0.0)
                for start in sorted({ready, *(e for _, e, _, _ in placed if e > ready)}):
                    if _feasible(job, th[n], start, placed, by_name, cores, memory):
                        placed.append((start, start + job.seconds[th[n]], n, th[n]))
                        ends[n] = start + job.seconds[th[n]]
                        break
            if len(ends) == len(names):
                best = min(best, max(ends.values()))
    return best


def random_jobs(rng, n, cores, constraints=True):
    jobs = []
    for i in range(n):
        s1 = float(rng.integers(1, 20))
        seconds = {1: s1}
        if rng.random() < 0.6:
            for t in range(2, cores + 1):
                seconds[t] = round(s1 / (1 + (t - 1) * rng.uniform(0.3, 1.0)), 2)
        if constraints:
            memory = float(rng.choice([0, 0, 3, 6]))
            group = "g" if rng.random() < 0.25 else None
            after = tuple(f"j{k}" for k in range(i) if rng.random() < 0.15)
        else:
            memory, group, after = 0.0, None, ()
        jobs.append(Job(f"j{i}", seconds, memory=memory, group=group, after=after))
    return jobs


def check_plan(p, jobs, cores, memory=math.inf, now=0.0):
    """Every constraint holds, and no core idles while a waiting job could start."""
    by_name = {j.name: j for j in jobs}
    slots = {s.job: s for s in p.slots}
    assert set(slots) == set(by_name)
    for s in p.slots:
        job = by_name[s.job]
        assert s.threads in job.seconds and s.threads <= cores  # thread choices respected
        assert s.end - s.start == pytest.approx(job.seconds[s.threads])
        for a in job.after:
            assert slots[a].end <= s.start + EPS
    events = {now, *(s.start for s in p.slots), *(s.end for s in p.slots)}
    times = sorted(t for t in events if t >= now)
    for t in times:
        active = [s for s in p.slots if s.start <= t + EPS and s.end > t + EPS]
        used = sum(s.threads for s in active)
        mem = sum(by_name[s.job].memory for s in active)
        groups = [by_name[s.job].group for s in active if by_name[s.job].group]
        assert used <= cores
        assert mem <= memory + EPS  # memory guard
        assert len(groups) == len(set(groups))
        free = cores - used
        if free == 0:
            continue
        for s in p.slots:  # a job still waiting at t must be held back by something
            if s.start <= t + EPS:
                continue
            job = by_name[s.job]
            blocked = (
                any(slots[a].end > t + EPS for a in job.after)
                or (job.group in groups)
                or mem + job.memory > memory + EPS
                or min(job.seconds) > free
            )
            assert blocked, f"{s.job} waits at t={t} while {free} core(s) idle"


# --------------------------------------------------------------------------- optimality
def test_plan_is_close_to_the_brute_force_optimum_on_small_random_cases():
    rng = np.random.default_rng(20)
    ratios = []
    for _ in range(150):
        cores = int(rng.choice([2, 2, 3]))
        jobs = random_jobs(rng, int(rng.integers(2, 6)), cores)
        opt = brute_force(jobs, cores, memory=8.0)
        p = plan(jobs, cores, memory=8.0)
        check_plan(p, jobs, cores, memory=8.0)
        ratios.append(p.makespan / opt)
    ratios = np.array(ratios)
    assert ratios.min() >= 1 - 1e-9  # a plan cannot beat the optimum
    # a list schedule cannot wait on purpose, which the optimum sometimes does; on
    # these cases the search found the optimum in about 97% and was never 5% above it
    assert np.mean(ratios < 1 + 1e-9) >= 0.9
    assert ratios.max() <= 1.10


def test_single_threaded_jobs_reach_the_optimum():
    """Two cores, single-threaded jobs, no constraints: the classic partition problem."""
    rng = np.random.default_rng(7)
    for _ in range(60):
        jobs = random_jobs(rng, int(rng.integers(3, 7)), 2, constraints=False)
        jobs = [Job(j.name, {1: j.seconds[1]}) for j in jobs]
        assert plan(jobs, 2).makespan == pytest.approx(brute_force(jobs, 2))
    # longest first alone is not optimal here (3+2+2 against 3+2); the search is
    jobs = [Job(n, {1: s}) for n, s in zip("abcde", [3, 3, 2, 2, 2], strict=True)]
    assert plan(jobs, 2).makespan == 6.0
    lpt = list_schedule(jobs, list("abcde"), {}, 2)
    assert lpt.makespan == 7.0


def test_long_job_gets_both_cores_only_when_it_would_set_the_makespan():
    scale = {1: 100.0, 2: 58.0}  # 1.72 times faster on two threads (86% efficient)
    others = [Job(f"x{i}", {1: 30.0}) for i in range(7)]  # 210 core-seconds
    p = plan([Job("cnn", scale), *others], cores=2)
    assert p.threads["cnn"] == 1  # not critical: both cores are busy anyway
    assert p.makespan == pytest.approx(160.0)  # on two threads: 58 + 4 x 30 = 178
    few = others[:2]  # now the convnet alone would be the critical path
    p = plan([Job("cnn", scale), *few], cores=2)
    assert p.threads["cnn"] == 2
    assert p.makespan == pytest.approx(88.0)
    assert p.makespan == pytest.approx(brute_force([Job("cnn", scale), *few], 2))


# --------------------------------------------------------------------------- constraints
def test_no_idle_core_while_work_remains_on_random_cases():
    rng = np.random.default_rng(3)
    for _ in range(120):
        cores = int(rng.choice([1, 2, 3, 4]))
        jobs = random_jobs(rng, int(rng.integers(1, 10)), cores)
        p = plan(jobs, cores, memory=8.0)
        check_plan(p, jobs, cores, memory=8.0)
        used = sum(s.threads * s.seconds for s in p.slots)
        assert p.idle_core_seconds == pytest.approx(cores * p.makespan - used, abs=1e-6)


def test_thread_choices_are_respected():
    jobs = [
        Job("single", {1: 10.0}),
        Job("pair_only", {2: 6.0}),
        Job("any", {1: 8.0, 2: 5.0, 4: 3.0}),
    ]
    p = plan(jobs, cores=3)
    assert p.threads["single"] == 1 and p.threads["pair_only"] == 2
    assert p.threads["any"] in (1, 2)  # 4 threads do not fit on 3 cores
    check_plan(p, jobs, 3)
    fixed = plan(jobs, cores=3, fixed_threads={"any": 1})
    assert fixed.threads["any"] == 1
    # when fewer cores are free than chosen, a job starts with the most that fit
    ls = list_schedule(jobs, ["single", "any", "pair_only"], {"any": 2}, cores=2)
    assert ls.slot("single").start == 0 and ls.slot("any").threads == 1
    with pytest.raises(ValueError, match="pair_only"):
        plan([Job("pair_only", {2: 6.0})], cores=1)
    with pytest.raises(ValueError, match="fixed_threads"):
        plan(jobs, cores=3, fixed_threads={"single": 2})


def test_memory_guard_and_groups():
    big = [Job(f"svm{i}", {1: 10.0, 2: 6.0}, memory=13.0) for i in range(2)]
    small = [Job("small", {1: 4.0}, memory=2.0)]
    p = plan(big + small, cores=2, memory=16.0)
    a, b = p.slot("svm0"), p.slot("svm1")
    assert a.end <= b.start + EPS or b.end <= a.start + EPS  # 26 > 16: never together
    check_plan(p, big + small, 2, memory=16.0)
    roomy = plan(big + small, cores=2, memory=40.0)
    assert roomy.makespan < p.makespan
    with pytest.raises(ValueError, match="svm0.*more than memory"):
        plan(big, cores=2, memory=12.0)
    grouped = [Job("a", {1: 5.0}, group="rng"), Job("b", {1: 5.0}, group="rng")]
    g = plan(grouped, cores=2)
    assert g.makespan == pytest.approx(10.0) and g.idle_core_seconds == pytest.approx(10.0)
    check_plan(g, grouped, 2)


def test_precedence_and_critical_path():
    jobs = [
        Job("gram", {1: 4.0, 2: 2.2}),
        Job("rbf", {1: 6.0}, after=("gram",)),
        Job("poly", {1: 3.0}, after=("gram",)),
        Job("lin", {1: 9.0}),
    ]
    p = plan(jobs, cores=2)
    check_plan(p, jobs, 2)
    assert p.makespan == pytest.approx(brute_force(jobs, 2))
    path = p.critical_path
    for first, second in itertools.pairwise(path):  # each started when the one before ended
        assert p.slot(first).end == pytest.approx(p.slot(second).start)
    assert p.slot(path[-1]).end == pytest.approx(p.makespan)
    assert p.slot(path[0]).start == 0.0
    with pytest.raises(ValueError, match="cycle"):
        plan([Job("a", {1: 1.0}, after=("b",)), Job("b", {1: 1.0}, after=("a",))], cores=2)
    with pytest.raises(ValueError, match="unknown"):
        plan([Job("a", {1: 1.0}, after=("z",))], cores=2)


def test_replanning_with_running_jobs():
    jobs = [Job("a", {1: 10.0}), Job("b", {1: 4.0}), Job("c", {1: 4.0}), Job("d", {1: 2.0})]
    started = {"a": Slot("a", 1, 0.0, 10.0)}
    p = plan(jobs[:3] + jobs[3:], cores=2, started=started, done=(), now=3.0)
    assert p.slot("a") == Slot("a", 1, 0.0, 10.0)
    assert min(s.start for s in p.slots if s.job != "a") == 3.0
    check_plan(p, jobs, 2, now=3.0)
    # finished jobs are given by name; their dependants may start
    later = plan([Job("e", {1: 1.0}, after=("b",))], cores=2, done={"b"}, now=5.0)
    assert later.slot("e").start == 5.0
    with pytest.raises(ValueError, match="more threads than cores"):
        plan(jobs, cores=1, started={"a": Slot("a", 1, 0, 1), "b": Slot("b", 1, 0, 1)})


def test_tolerance_prefers_fewer_core_seconds_among_near_ties():
    # a on two threads is 0.05 s shorter but wastes two core-seconds
    jobs = [Job("a", {1: 10.0, 2: 5.95}), Job("b", {1: 4.0}), Job("c", {1: 3.9})]
    exact = plan(jobs, cores=2)
    assert exact.threads["a"] == 2 and exact.makespan == pytest.approx(9.95)
    loose = plan(jobs, cores=2, tolerance=0.05)
    assert loose.threads["a"] == 1 and loose.makespan == pytest.approx(10.0)
    assert loose.core_seconds == pytest.approx(exact.core_seconds - 1.9)  # 11.9 - 10


def test_plan_of_a_run_and_bad_input():
    ran = plan_of(
        [Slot("x", 1, 0.0, 4.0), Slot("y", 1, 0.5, 3.0), Slot("z", 1, 3.0, 6.5, "y")],
        cores=2,
        origin=0.0,
    )
    assert ran.makespan == 6.5
    assert ran.idle_core_seconds == pytest.approx(2 * 6.5 - (4 + 2.5 + 3.5))
    assert ran.critical_path == ("y", "z")
    with pytest.raises(ValueError, match="slots"):
        plan_of([], cores=2)
    with pytest.raises(ValueError, match="cores"):
        plan([Job("a", {1: 1.0})], cores=0)
    with pytest.raises(ValueError, match="unique"):
        plan([Job("a", {1: 1.0}), Job("a", {1: 2.0})], cores=1)
    with pytest.raises(ValueError, match="seconds"):
        Job("a", {})
    with pytest.raises(ValueError, match="thread counts"):
        Job("a", {0: 1.0})
    with pytest.raises(ValueError, match="finite"):
        Job("a", {1: math.nan})
    with pytest.raises(ValueError, match="memory"):
        Job("a", {1: 1.0}, memory=-1)
    with pytest.raises(ValueError, match="memory"):
        plan([Job("a", {1: 1.0})], cores=1, memory=0)
    with pytest.raises(ValueError, match="max_running"):
        plan([Job("a", {1: 1.0})], cores=1, max_running=0)
    with pytest.raises(ValueError, match="tolerance"):
        plan([Job("a", {1: 1.0})], cores=1, tolerance=2)
    with pytest.raises(ValueError, match="rank"):
        list_schedule([Job("a", {1: 1.0})], ["b"], {}, cores=1)


def test_max_running_limits_jobs_side_by_side():
    jobs = [Job(n, {1: 3.0, 2: 2.0}) for n in "abc"]
    one = plan(jobs, cores=2, max_running=1)
    assert one.makespan == pytest.approx(6.0)  # one at a time, each on both cores
    assert all(s.threads == 2 for s in one.slots)
    check_plan(one, jobs, 2)
