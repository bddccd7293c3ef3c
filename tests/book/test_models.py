"""Tests of heldout.book.mnist.models: splits, the error bar, the kNN single query, the cache, the table."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

from heldout.book.mnist import models


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("HELDOUT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("HELDOUT_MNIST_DIR", raising=False)


def _kaggle_dir(folder, n=400, seed=3, noise=60):
    """A small directory in Kaggle's train.csv layout: 10 noisy prototype digits."""
    rng = np.random.default_rng(seed)
    protos = rng.integers(0, 256, size=(10, 784))
    labels = rng.integers(0, 10, size=n)
    images = np.clip(protos[labels] + rng.integers(-noise, noise + 1, size=(n, 784)), 0, 255)
    folder.mkdir(parents=True, exist_ok=True)
    header = ",".join(["label"] + [f"pixel{i}" for i in range(784)])
    rows = "\n".join(",".join(map(str, r)) for r in np.column_stack([labels, images]))
    (folder / "train.csv").write_text(header + "\n" + rows + "\n")
    return images.astype(np.uint8), labels


# --------------------------------------------------------------------------- splits and error bar
def test_article_split_reproduces_the_two_calls():
    n = 1000
    X = np.arange(n) * 7 + 3  # any rows: the split depends on the row count only
    y = X % 10
    X_train, X_rest, _, y_rest = train_test_split(X, y, test_size=0.2, random_state=42)
    X_test, X_val, _, _ = train_test_split(X_rest, y_rest, test_size=0.5, random_state=42)
    split = models.article_split(n)
    np.testing.assert_array_equal(X[split.train], X_train)
    np.testing.assert_array_equal(X[split.val], X_val)
    np.testing.assert_array_equal(X[split.test], X_test)
    np.testing.assert_array_equal(np.sort(X[split.baseline_test]), np.sort(X_rest))
    assert (len(split.train), len(split.val), len(split.test)) == (800, 100, 100)
    assert len(np.unique(np.concatenate([split.train, split.val, split.test]))) == n


def test_article_se_reproduces_the_articles_printed_error_bars():
    # The article prints 87.08 +- 0.37% on 8,400 items and 97.38 +- 0.25% on 4,200.
    assert round(100 * models.article_se(0.8708, 8400), 2) == 0.37
    assert round(100 * models.article_se(0.9738, 4200), 2) == 0.25
    assert round(100 * models.article_se(0.9869, 4200), 2) == 0.18
    # Close to the standard deviation of the Beta(k+1, n-k+1) posterior.
    k, n = 4090, 4200
    exact = stats.beta(k + 1, n - k + 1).std()
    assert models.article_se(k / n, n) == pytest.approx(exact, rel=2e-2)
    with pytest.raises(ValueError, match="accuracy"):
        models.article_se(1.2, 10)
    with pytest.raises(ValueError, match="n"):
        models.article_se(0.5, 0)


# --------------------------------------------------------------------------- kNN
def test_knn_votes_small_hand_example():
    labels = np.array([[1, 2, 2, 1, 0], [3, 3, 0, 0, 0]])
    got = models.knn_votes(labels, [1, 2, 3, 4, 5], n_classes=4)
    # ties go to the smallest class, like scikit-learn
    np.testing.assert_array_equal(got, [[1, 3], [1, 3], [2, 3], [1, 0], [1, 0]])
    with pytest.raises(ValueError, match="ks"):
        models.knn_votes(labels, [6])
    with pytest.raises(ValueError, match="neighbour_labels"):
        models.knn_votes(labels[0], [1])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_knn_single_query_equals_one_fit_per_k(seed):
    rng = np.random.default_rng(seed)
    # Overlapping classes and even k: many tied votes.  Continuous features, so no
    # two training points are at exactly the same distance from a query (with exact
    # distance ties, which of the tied points count is arbitrary in either method).
    X = rng.normal(size=(300, 6))
    y = rng.integers(0, 3, size=300)
    Xv = rng.normal(size=(120, 6))
    Xt = rng.normal(size=(80, 6)) * 2
    ks = range(3, 9)
    pv, pt, _, _ = models.knn_fast(X[:200], y[:200], Xv, Xt, ks)
    assert len({tuple(p) for p in pv}) > 1  # the k do not all agree: the test can fail
    for i, k in enumerate(ks):
        ref = KNeighborsClassifier(n_neighbors=k).fit(X[:200], y[:200])
        np.testing.assert_array_equal(pv[i], ref.predict(Xv))
        np.testing.assert_array_equal(pt[i], ref.predict(Xt))
    av, at, _, _ = models.knn_article(X[:200], y[:200], Xv, Xt, ks)
    np.testing.assert_array_equal(av, pv)
    np.testing.assert_array_equal(at, pt)


def test_knn_on_integer_pixels_equals_one_fit_per_k_on_them():
    """Integer pixels are queried as float64 without the always-zero columns: same neighbours."""
    rng = np.random.default_rng(7)
    X = rng.integers(0, 256, size=(400, 40)).astype(np.uint8)
    X[rng.random(X.shape) < 0.5] = 0  # sparse, like digits
    X[:300, :5] = 0  # zero in every training row, not in the queries
    y = rng.integers(0, 4, size=400)
    Xtr, ytr, Xv, Xt = X[:300], y[:300], X[300:360], X[360:]
    ks = range(3, 9)
    pv, pt, _, _ = models.knn_fast(Xtr, ytr, Xv, Xt, ks)
    fv, ft, _, _ = models.knn_fast(Xtr.astype(float), ytr, Xv.astype(float), Xt.astype(float), ks)
    np.testing.assert_array_equal(pv, fv)
    np.testing.assert_array_equal(pt, ft)
    assert len({tuple(p) for p in pv}) > 1
    for i, k in enumerate(ks):  # the article's way: one fit per k, on the integers
        ref = KNeighborsClassifier(n_neighbors=k).fit(Xtr, ytr)
        np.testing.assert_array_equal(pv[i], ref.predict(Xv))
        np.testing.assert_array_equal(pt[i], ref.predict(Xt))


# --------------------------------------------------------------------------- cache and table
FAST = ["linear_svc_scaled", "svc_poly3", "knn_3", "knn_5", "knn_8"]


def test_experiment_is_cached_and_not_refitted(tmp_path, monkeypatch):
    images, labels = _kaggle_dir(tmp_path / "kaggle")
    first = models.experiment(400, models=FAST, directory=tmp_path / "kaggle", progress=False)
    assert not any(t["cached"] for t in first.timings.values())
    assert set(first.predictions) == set(FAST)
    # The truth vectors are the rows the article's split picks.
    split = models.article_split(400)
    np.testing.assert_array_equal(first.y_val, labels[split.val])

    def boom(*args, **kwargs):
        raise AssertionError("refitted although cached")

    for fitter in (
        "knn_fast",
        "_linear_svc",
        "_kernel_svm_job",
        "_gram_job",
        "_svc",
        "_xgboost",
        "_keras",
    ):
        monkeypatch.setattr(models, fitter, boom)
    second = models.experiment(400, models=FAST, directory=tmp_path / "kaggle", progress=False)
    assert all(t["cached"] for t in second.timings.values())
    for name in FAST:
        for part in ("val", "test"):
            np.testing.assert_array_equal(
                second.predictions[name][part], first.predictions[name][part]
            )
        assert second.timings[name]["fit_s"] == first.timings[name]["fit_s"]
    # Other parameters (here the list of k) make another key: it must fit again.
    with pytest.raises(AssertionError, match="refitted"):
        models.experiment(
            400, models=["knn_3"], way="fast", directory=tmp_path / "kaggle", progress=False
        )


def test_cache_key_depends_on_every_part():
    base = models.PredictionCache.key("d1", "svc_rbf", {"a": 1}, "full")
    assert base == models.PredictionCache.key("d1", "svc_rbf", {"a": 1}, "full")
    others = [
        models.PredictionCache.key("d2", "svc_rbf", {"a": 1}, "full"),
        models.PredictionCache.key("d1", "svc_poly3", {"a": 1}, "full"),
        models.PredictionCache.key("d1", "svc_rbf", {"a": 2}, "full"),
        models.PredictionCache.key("d1", "svc_rbf", {"a": 1}, "quick"),
    ]
    assert len({base, *others}) == 5
    assert models.model_params("cnn", epochs=2) != models.model_params("cnn", epochs=10)


def test_cache_round_trip_and_damaged_entry(tmp_path):
    cache = models.PredictionCache(tmp_path)
    entry = {
        "val": np.array([1, 2, 3]),
        "test": np.array([4, 5]),
        "fit_s": 1.5,
        "predict_s": 0.25,
        "info": {"x": 1},
    }
    cache.put("k", entry)
    got = cache.get("k")
    np.testing.assert_array_equal(got["val"], [1, 2, 3])
    np.testing.assert_array_equal(got["test"], [4, 5])
    assert (got["fit_s"], got["predict_s"], got["info"]) == (1.5, 0.25, {"x": 1})
    cache.path("bad").write_bytes(b"garbage")
    assert cache.get("bad") is None and cache.get("missing") is None


def test_results_table_against_scipy(tmp_path):
    _kaggle_dir(tmp_path / "kaggle")
    exp = models.experiment(
        400, models=["linear_svc_scaled", "knn_3"], directory=tmp_path / "kaggle", progress=False
    )
    table = models.results_table(exp)
    assert set(zip(table.model, table.part, strict=True)) == {
        ("linear_svc_scaled", "baseline"),
        ("linear_svc_scaled", "val"),
        ("linear_svc_scaled", "test"),
        ("knn_3", "val"),
        ("knn_3", "test"),
    }
    for row in table.itertuples():
        truth = {"val": exp.y_val, "test": exp.y_test}
        if row.part == "baseline":
            pred = np.concatenate(
                [exp.predictions[row.model]["test"], exp.predictions[row.model]["val"]]
            )
            y = np.concatenate([exp.y_test, exp.y_val])
        else:
            pred, y = exp.predictions[row.model][row.part], truth[row.part]
        k = int(np.sum(pred == y))
        assert (row.n, row.correct) == (y.size, k)
        ci = stats.binomtest(k, y.size).proportion_ci(confidence_level=0.95, method="exact")
        assert row.cp_low == pytest.approx(ci.low, abs=1e-10)
        assert row.cp_high == pytest.approx(ci.high, abs=1e-10)
        assert row.se_article == pytest.approx(
            np.sqrt(k / y.size * (1 - k / y.size) / (y.size + 3))
        )
    assert table.n[table.part == "baseline"].item() == 80  # the 20% part of 400
    # the article's values sit beside ours where it reported them
    knn_val = table[(table.model == "knn_3") & (table.part == "val")]
    assert knn_val.article_accuracy.item() == 0.9664
    assert np.isnan(
        table[(table.model == "knn_3") & (table.part == "test")].article_accuracy.item()
    )


DETERMINISTIC = [
    "linear_svc_raw",
    "linear_svc_scaled",
    "svc_rbf",
    "svc_poly3",
    *(f"knn_{k}" for k in range(3, 9)),
    "xgboost",
]


def test_our_way_gives_the_articles_predictions(tmp_path):
    """Kernel matrices from BLAS, one kNN query, two lanes: the same predictions as the article's way."""
    _kaggle_dir(tmp_path / "kaggle", n=600, seed=5, noise=400)
    kw = {"models": DETERMINISTIC, "directory": tmp_path / "kaggle", "progress": False}
    art = models.experiment(600, way="article", cache=False, **kw)
    ours = models.experiment(600, way="fast", cache=False, **kw)
    alone = models.experiment(600, way="fast", cache=False, n_jobs=1, **kw)
    for name in DETERMINISTIC:
        for part in ("val", "test"):
            np.testing.assert_array_equal(ours.predictions[name][part], art.predictions[name][part])
            np.testing.assert_array_equal(
                alone.predictions[name][part], art.predictions[name][part]
            )
    assert ours.info["svc_rbf"]["kernel_matrix"] == "blas"
    assert ours.info["svc_rbf"]["gram"] == "shared"
    # the plan, and what ran: every job once, the Gram matrix before the kernel SVMs
    cores = ours.machine.cores
    ran = {s.job: s for s in ours.ran.slots}
    assert set(ran) == {"gram", "knn", *(m for m in DETERMINISTIC if not m.startswith("knn"))}
    assert set(ran) == {s.job for s in ours.plan.slots}
    assert ran["gram"].end <= min(ran["svc_rbf"].start, ran["svc_poly3"].start)
    assert ours.ran.idle_core_seconds >= 0 and ours.ran.critical_path
    for s in ours.ran.slots:
        assert 1 <= s.threads <= cores
        if s.job != "gram":
            model = "knn_8" if s.job == "knn" else s.job
            assert models.fit_threads(ours, model) == s.threads
    # one job at a time, each with every CPU it can use
    spans = sorted((s.start, s.end) for s in alone.ran.slots)
    assert all(a[1] <= b[0] + 1e-6 for a, b in zip(spans, spans[1:], strict=False))
    assert alone.info["xgboost"]["threads"] == cores
    assert alone.info["linear_svc_raw"]["threads"] == 1
    # our way's networks: own process, oneDNN kernels (part of the cache key)
    assert models.model_params("cnn")["tf_kernels"] == "onednn"
    assert "tf_kernels" not in models.model_params("cnn", way="article")
    assert ours.info["svc_poly3"]["support_vectors"] > 0
    # the scaled linear SVC uses the primal solver and converges; the raw one does not
    assert models.model_params("linear_svc_scaled")["dual"] is False
    assert ours.info["linear_svc_scaled"]["converged"]
    # the models are not all the same: a wrong split or label order would show
    accs = {m: ours.correct(m).mean() for m in DETERMINISTIC}
    assert max(accs.values()) > 0.5 and len(set(accs.values())) > 2


def test_threads_asked_for_are_used_and_recorded(tmp_path):
    _kaggle_dir(tmp_path / "kaggle", n=400, seed=4)
    kw = {"directory": tmp_path / "kaggle", "progress": False}
    one = models.experiment(400, models=["xgboost"], threads={"xgboost": 1}, **kw)
    assert one.info["xgboost"]["threads"] == 1 and models.fit_threads(one, "xgboost") == 1
    assert one.plan.threads == {"xgboost": 1}
    cached = models.experiment(400, models=["xgboost"], **kw)
    assert cached.plan is None and cached.ran is None  # nothing fitted, nothing planned
    assert models.fit_threads(cached, "xgboost") == 1  # recorded with the predictions
    np.testing.assert_array_equal(
        cached.predictions["xgboost"]["val"], one.predictions["xgboost"]["val"]
    )
    with pytest.raises(ValueError, match="threads must map"):
        models.experiment(400, models=["xgboost"], threads={"svm": 1}, **kw)
    with pytest.raises(ValueError, match="threads"):
        models.experiment(400, models=["xgboost"], threads={"xgboost": 0}, **kw)
    with pytest.raises(ValueError, match="model must be"):
        models.fit_threads(one, "cnn")


def test_kernel_svm_falls_back_to_libsvm_when_memory_is_short(tmp_path, monkeypatch):
    _kaggle_dir(tmp_path / "kaggle", n=400, seed=8)
    kw = {"models": ["svc_rbf"], "directory": tmp_path / "kaggle", "progress": False}
    roomy = models.experiment(400, cache=False, **kw)
    monkeypatch.setattr(models, "_free_memory", lambda: 10_000)
    short = models.experiment(400, cache=False, **kw)
    assert roomy.info["svc_rbf"]["kernel_matrix"] == "blas"
    assert short.info["svc_rbf"]["kernel_matrix"].startswith("libsvm")
    for part in ("val", "test"):
        np.testing.assert_array_equal(
            short.predictions["svc_rbf"][part], roomy.predictions["svc_rbf"][part]
        )


def test_free_memory_is_a_plausible_number():
    free = models._free_memory()
    assert free is None or 0 < free < 2**50


def test_networks_process_reports_progress_results_and_errors():
    """The networks' own process: epochs and results come back; a failure is an error here."""
    pytest.importorskip("tensorflow")
    rng = np.random.default_rng(0)
    X = rng.integers(0, 256, size=(300, 784)).astype(np.uint8)
    y = rng.integers(0, 10, size=300)
    Xv, Xt = X[:50], X[50:80]
    params = models.model_params("dense_nn", epochs=2)
    bad = {**params, "hidden": -3}
    epochs, done = [], {}

    def run(jobs, on_done, steps=models.STEPS_PER_CALL):
        models._networks_in_process(
            jobs, X, y, Xv, Xt, 0, 1, lambda name, note: epochs.append(name), on_done, steps
        )

    # the first network trains and reports; the second fails, and so does the call
    with pytest.raises(RuntimeError, match="dense_nn_scaled failed in its own process"):
        run(
            [("dense_nn", params), ("dense_nn_scaled", bad)],
            lambda name, out, wall: done.update({name: out}),
        )
    assert epochs == ["dense_nn", "dense_nn"]
    pv, pt, fit_s, pred_s, _ = done["dense_nn"]
    assert pv.shape == (50,) and pt.shape == (30,) and fit_s > 0
    # same seed, same single thread: a second process gives the same predictions, even
    # after a speed probe of the same network in that process, and with one training
    # step per call into TensorFlow instead of several (the same steps)
    assert models.STEPS_PER_CALL > 3  # the three steps of an epoch here in one call
    again = {}
    run(
        [("dense_nn_probe", params), ("dense_nn", params)],
        lambda name, out, wall: again.update({name: out}),
        steps=1,
    )
    assert 0 < again["dense_nn_probe"] < 10  # seconds per training step
    np.testing.assert_array_equal(again["dense_nn"][0], pv)
    np.testing.assert_array_equal(again["dense_nn"][1], pt)


def test_convnet_speed_is_probed_before_its_threads_are_chosen(tmp_path, monkeypatch):
    pytest.importorskip("tensorflow")
    _kaggle_dir(tmp_path / "kaggle", n=400, seed=6)
    kw = {"directory": tmp_path / "kaggle", "progress": False, "cache": False, "epochs": 1}
    monkeypatch.setattr(models, "_PROBE_CNN_ABOVE", 0.0)  # probe even this small fit
    probed = models.experiment(400, models=["cnn"], **kw)
    ran = {s.job: s for s in probed.ran.slots}
    cores = probed.machine.cores
    if cores == 1:
        assert "cnn_probe" not in ran
        return
    assert ran["cnn_probe"].end <= ran["cnn"].start + 1e-6
    assert ran["cnn"].trigger == "cnn_probe"
    # the estimates now come from the measured speed (the table's would be about 1 s)
    assert probed.estimates["cnn"][1] > 0
    # the probe leaves no trace: the same thread count without a probe, same predictions
    t = models.fit_threads(probed, "cnn")
    direct = models.experiment(400, models=["cnn"], threads={"cnn": t}, **kw)
    assert "cnn_probe" not in {s.job for s in direct.ran.slots}
    for part in ("val", "test"):
        np.testing.assert_array_equal(
            direct.predictions["cnn"][part], probed.predictions["cnn"][part]
        )


def test_bad_arguments():
    with pytest.raises(ValueError, match="models must be"):
        models.experiment(400, models=["svm"])
    with pytest.raises(ValueError, match="way"):
        models.experiment(400, way="slow")
    with pytest.raises(ValueError, match="n must be"):
        models.experiment(5)
    with pytest.raises(ValueError, match="name must be"):
        models.model_params("lasso")
    with pytest.raises(ValueError, match="n_jobs"):
        models.experiment(400, n_jobs=0)


def test_article_results_are_complete():
    assert {k for k in models.ARTICLE_RESULTS if k != "cnn_test"} <= set(models.MODEL_NAMES)
    # the families the article tried: linear SVC, two kernels, dense net, convnet, kNN, XGBoost
    assert len(set(models.FAMILY.values())) == 7
    for value in models.ARTICLE_RESULTS.values():
        assert 0.8 < value["accuracy"] < 1 and 0 < value["se"] < 0.01
