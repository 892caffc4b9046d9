"""Data, ground truth and utility metrics for the paper-001 experiments.

Evaluation only: the similarities and metrics are float METRICS (numpy / scikit-learn; nothing
here is sampled or checked), imported inside the functions (the ``[experiments]`` extra):

* :func:`digits` — scikit-learn's ``load_digits`` as integer vectors in ``{0..16}^64`` (``C = 16``;
  the paper's ``beta = 1`` on data in ``[0, 1]`` is ``beta = 16`` grid steps here);
* :func:`split` — a seeded query/database split and a seeded stratified train/test split;
* :func:`true_neighbours` — the top-50 cosine neighbours of every query in the database (raw data);
* :func:`precision_at` — precision at ``R`` of a retrieval by a similarity on private vectors
  (cosine of noisy projections, or agreements of sign vectors), ties broken by a seeded random
  order (sign vectors have few distinct similarities; breaking ties by index would favour low
  database indices);
* :func:`svm_accuracy` — test accuracy of ``LinearSVC`` trained on private training features.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "TOP",
    "Split",
    "digits",
    "load",
    "patches",
    "precision_at",
    "similarity",
    "sparse_text",
    "split",
    "svm_accuracy",
    "true_neighbours",
]

TOP = 50  # ground truth: top-50 cosine neighbours (the paper's Figs 10-13)


def digits() -> tuple[np.ndarray, np.ndarray]:
    """(X, y): 1797 x 64 integer pixels in 0..16 and the digit labels."""
    import numpy as np
    from sklearn.datasets import load_digits

    d = load_digits()
    x = d.data.astype(np.int64)
    assert np.array_equal(x, d.data) and x.min() == 0 and x.max() == 16
    return x, d.target.astype(np.int64)


def patches(n: int = 1797, side: int = 8, seed: int = 2024) -> tuple[np.ndarray, np.ndarray]:
    """(X, y): ``n`` seeded ``side x side`` gray patches of scikit-learn's two bundled
    photographs (``load_sample_images``: china.jpg, flower.jpg; natural images standing in
    for CIFAR, which cannot be downloaded here), pixels quantised to ``0..16`` like digits;
    ``y`` the photograph a patch comes from.  Patches that quantise to all zeros (no cosine)
    are skipped."""
    import numpy as np
    from sklearn.datasets import load_sample_images

    rows, labels = [], []
    for label, image in enumerate(load_sample_images().images):
        gray = image.astype(np.int64).sum(axis=2)  # 0..765
        h, w = (gray.shape[0] // side) * side, (gray.shape[1] // side) * side
        blocks = gray[:h, :w].reshape(h // side, side, w // side, side).swapaxes(1, 2)
        q = (blocks.reshape(-1, side * side) * 16 + 382) // 765  # round(g * 16 / 765)
        keep = q.max(axis=1) > 0
        rows.append(q[keep])
        labels.append(np.full(int(keep.sum()), label))
    x, y = np.concatenate(rows), np.concatenate(labels)
    pick = np.sort(np.random.default_rng(seed).choice(len(x), size=n, replace=False))
    return x[pick], y[pick]


def sparse_text(n: int = 2000, features: int = 512, seed: int = 2024,
                vocabulary: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """(X, y): a seeded synthetic stand-in for WEBSPAM (not downloadable here): ``n``
    documents of 5-20 tokens over ``vocabulary`` hashed token ids, half from each of two
    classes; a class draws a token from its own Zipf law (exponent 1.1, over its own
    permutation of the ids) with probability 0.6, else from a shared one.  Counts per
    document, max-normalised per column to ``0..16`` (``ceil(16 c / max)``: a present
    feature stays non-zero), empty columns removed as the paper does (about 3,000 remain),
    then only the ``features`` most frequent kept: 512 columns with about 8 non-zeros per
    document (1.6 %), the density of WEBSPAM's 3-gram data in the paper's 250,000 columns
    (about 3,700 non-zeros per document, 1.5 %), at a dimension the exact raw-data baseline
    (one exact noise draw per coordinate of every vector, 10 repetitions of 9 eps) can
    afford."""
    import numpy as np

    rng = np.random.default_rng([seed, n, vocabulary])
    zipf = 1.0 / np.arange(1, vocabulary + 1) ** 1.1
    zipf /= zipf.sum()
    shared, own = rng.permutation(vocabulary), [rng.permutation(vocabulary) for _ in range(2)]
    y = np.arange(n) % 2
    counts = np.zeros((n, vocabulary), dtype=np.int64)
    for i in range(n):
        length = int(rng.integers(5, 21))
        from_own = rng.random(length) < 0.6
        ranks = rng.choice(vocabulary, size=length, p=zipf)
        ids = np.where(from_own, own[y[i]][ranks], shared[ranks])
        np.add.at(counts[i], ids, 1)
    top = counts.max(axis=0)
    keep = np.flatnonzero(top > 0)
    keep = keep[np.argsort(-(counts[:, keep] > 0).sum(axis=0), kind="stable")]
    keep = np.sort(keep[:features])
    x = -(-counts[:, keep] * 16 // top[keep])
    return x, y


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A dataset by name: ``digits``, ``patches`` or ``sparse``."""
    if name == "digits":
        return digits()
    if name == "patches":
        return patches()
    if name == "sparse":
        return sparse_text()
    raise ValueError(f"dataset {name!r}: digits, patches or sparse")


@dataclass(frozen=True)
class Split:
    queries: np.ndarray    # indices of the retrieval queries
    database: np.ndarray   # indices of the retrieval database
    train: np.ndarray      # indices of the SVM training set
    test: np.ndarray       # indices of the SVM test set


def split(y: np.ndarray, n_queries: int = 297, n_train: int = 1000, seed: int = 0) -> Split:
    import numpy as np

    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    train, test = [], []
    for label in np.unique(y):  # stratified: the same share of every digit in train
        idx = order[y[order] == label]
        cut = round(len(idx) * n_train / len(y))
        train.extend(idx[:cut])
        test.extend(idx[cut:])
    return Split(np.sort(order[:n_queries]), np.sort(order[n_queries:]),
                 np.sort(np.array(train)), np.sort(np.array(test)))


def _unit(v: np.ndarray) -> np.ndarray:
    import numpy as np

    v = v.astype(np.float64)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(norms == 0, 1.0, norms)


def similarity(q: np.ndarray, db: np.ndarray, kind: str) -> np.ndarray:
    """``kind = "cosine"``: cosines; ``"signs"``: agreements of +-1 vectors (= k - Hamming)."""
    import numpy as np

    if kind == "cosine":
        return _unit(q) @ _unit(db).T
    if kind == "signs":
        return (q.astype(np.int64) @ db.astype(np.int64).T + q.shape[1]) // 2
    raise ValueError(kind)


def true_neighbours(x: np.ndarray, sp: Split) -> np.ndarray:
    import numpy as np

    sim = similarity(x[sp.queries], x[sp.database], "cosine")
    return np.argsort(-sim, axis=1, kind="stable")[:, :TOP]


def precision_at(sim: np.ndarray, truth: np.ndarray, rs: tuple[int, ...], seed: int) -> dict:
    """Mean precision at each R in ``rs`` (retrieved among the true top-50, divided by R)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    tie = rng.random(sim.shape)
    order = np.lexsort((tie, -sim), axis=1)  # by similarity, ties in a random order
    out = {}
    for r in rs:
        hits = [len(np.intersect1d(order[i, :r], truth[i])) for i in range(len(truth))]
        out[r] = float(np.mean(hits)) / r
    return out


def svm_accuracy(features: np.ndarray, y: np.ndarray, sp: Split) -> float:
    """Linear SVM (one-vs-rest, C = 1) on standardised private features: test accuracy."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    model = make_pipeline(StandardScaler(), LinearSVC(C=1.0, max_iter=2000))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(features[sp.train], y[sp.train])
    return float(model.score(features[sp.test], y[sp.test]))
