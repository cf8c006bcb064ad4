"""Train the failure classifier from corpora/ and ship it as plain JSON.

    python3 tools/train_classifier.py                 # evaluate by held-out family, then train
    python3 tools/train_classifier.py --evaluate-only # the evaluation alone

Needs scikit-learn (`pip install -e '.[train]'`); the shipped model does not. A tool of the
repository, not of the wheel: a controller never trains. Documents
are failure regions (analyzer.unknowns.region) of the labelled excerpts in corpora/failures
(family from their SOURCES.yaml) and of the healthy runs in corpora/clean (label `none`),
plus one document per cause signature made of its positive examples: the catalogue is
the widest collection of real message forms we have (held-out accuracy 0.69 without it,
0.76 with it). Generated bundles (corpora/generator) are left out: their few templates
outweigh real variety (0.65 with them). Evaluation holds out one source family at a
time (every DeepSpeed excerpt, say) and trains on the rest, so it measures what matters
for failures nobody wrote a signature for: message forms never seen. The temperature
that calibrates the probabilities is fitted on those held-out predictions.
Deterministic: the same corpora give the same model, byte for byte.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from analyzer.analysis import Analyzer, Settings
from analyzer.decide.verdict import model_region
from analyzer.read.lines import message_of
from analyzer.rules.signatures import PatternSet, load_patterns
from analyzer.unknowns.classifier import FORMAT, MODEL_PATH, TOKEN, region_text

ROOT = Path(__file__).resolve().parent.parent  # the repository
CORPORA = ROOT / "corpora"
CATALOGUE = "catalogue"  # signature examples: always trained on, never held out
_WORD = {"ngram": (1, 2), "max_features": 20000}
_CHAR = {"ngram": (3, 5), "max_features": 30000}
_C = 0.5  # LinearSVC: 10x faster to fit than LogisticRegression here, as accurate


@dataclass(frozen=True)
class Doc:
    text: str
    label: str
    family: str  # the held-out unit of evaluation
    source: str


def _region(paths: list[str], patterns: PatternSet) -> str:
    """The region the verdict would show the model, read through the same Analyzer."""
    job = Analyzer(Settings(patterns=patterns, model=False))
    job.read_paths(paths)
    region, _ = model_region(job.errors, job.evidence())
    return region_text([x.message(job.matcher.formats) for x in region])


def documents() -> list[Doc]:
    """Every training document, in a stable order."""
    # Progress signatures only: the region is what the verdict shows the model, the lines
    # after each file's last step; no failure signature may shape what it learns from.
    progress = PatternSet(tuple(s for s in load_patterns().signatures if s.role == "progress"), ())
    docs = []
    for sources in sorted((CORPORA / "failures").glob("*/SOURCES.yaml")):
        for entry in yaml.safe_load(sources.read_text(encoding="utf-8")):
            path = sources.parent / entry["file"]
            docs.append(
                Doc(_region([str(path)], progress), sources.parent.name, entry["family"], str(path))
            )
    for run in sorted(p for p in (CORPORA / "clean").iterdir() if p.is_dir()):
        docs.append(Doc(_region([str(run)], progress), "none", f"clean-{run.name}", str(run)))
    for sig in load_patterns().signatures:
        positives = [ex["log"] for ex in sig.examples if ex["match"]]
        if sig.role == "cause" and sig.category != "unknown" and positives:
            docs.append(
                Doc(
                    region_text([message_of(p) for p in positives]), sig.category, CATALOGUE, sig.id
                )
            )
    return [d for d in docs if d.text]


def _pipeline() -> Any:
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import FeatureUnion, Pipeline
    from sklearn.svm import LinearSVC

    return Pipeline(
        [
            (
                "features",
                FeatureUnion(
                    [
                        (
                            "word",
                            TfidfVectorizer(
                                token_pattern=TOKEN,
                                ngram_range=_WORD["ngram"],
                                sublinear_tf=True,
                                min_df=2,
                                max_features=_WORD["max_features"],
                                dtype=np.float64,
                            ),
                        ),
                        (
                            "char",
                            TfidfVectorizer(
                                analyzer="char_wb",
                                ngram_range=_CHAR["ngram"],
                                sublinear_tf=True,
                                min_df=2,
                                max_features=_CHAR["max_features"],
                                dtype=np.float64,
                            ),
                        ),
                    ]
                ),
            ),
            ("model", LinearSVC(C=_C, class_weight="balanced", random_state=0)),
        ]
    )


def _softmax(scores: list[float], t: float) -> list[float]:
    top = max(scores)
    exp = [math.exp((s - top) / t) for s in scores]
    total = sum(exp)
    return [e / total for e in exp]


def _fit_temperature(scores: list[list[float]], truth: list[int]) -> float:
    """The temperature that minimises the negative log-likelihood of held-out labels."""

    def nll(t: float) -> float:
        return -sum(
            math.log(max(_softmax(s, t)[y], 1e-12)) for s, y in zip(scores, truth, strict=True)
        )

    grid = [round(0.05 + 0.01 * i, 2) for i in range(396)]  # 0.05 .. 4.0
    return min(grid, key=lambda t: (nll(t), t))


@dataclass(frozen=True)
class Evaluation:
    accuracy: float
    temperature: float
    rows: list[tuple[str, str, str, float]]  # (source, truth, predicted, probability)
    per_family: dict[str, tuple[int, int]]


def evaluate(docs: list[Doc]) -> Evaluation:
    """Leave-one-family-out over the hand-collected corpus; the catalogue always trains."""
    pipe_classes = sorted({d.label for d in docs})
    held = sorted({d.family for d in docs if d.family != CATALOGUE})
    scores: list[list[float]] = []
    truth: list[int] = []
    meta: list[tuple[str, str]] = []
    for family in held:
        train = [d for d in docs if d.family != family]
        test = [d for d in docs if d.family == family]
        pipe = _pipeline().fit([d.text for d in train], [d.label for d in train])
        classes = list(pipe.classes_)
        dec = pipe.decision_function([d.text for d in test])
        for d, row in zip(test, dec, strict=True):
            full = [-1e9] * len(pipe_classes)  # a class absent from training scores nothing
            for c, v in zip(classes, row, strict=True):
                full[pipe_classes.index(c)] = float(v)
            scores.append(full)
            truth.append(pipe_classes.index(d.label))
            meta.append((d.source, d.family))
    t = _fit_temperature(scores, truth)
    rows: list[tuple[str, str, str, float]] = []
    per_family: dict[str, tuple[int, int]] = {}
    for s, y, (source, family) in zip(scores, truth, meta, strict=True):
        p = _softmax(s, t)
        k = max(range(len(p)), key=lambda i: p[i])
        rows.append((source, pipe_classes[y], pipe_classes[k], p[k]))
        good, total = per_family.get(family, (0, 0))
        per_family[family] = (good + (k == y), total + 1)
    acc = sum(r[1] == r[2] for r in rows) / len(rows)
    return Evaluation(acc, t, rows, per_family)


def reliability(rows: list[tuple[str, str, str, float]]) -> list[tuple[str, int, float, float]]:
    """(probability bin, verdicts in it, mean stated probability, share right)."""
    out = []
    for lo in (0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9):
        hi = {0.0: 0.3, 0.3: 0.5}.get(lo, round(lo + 0.1, 1))
        sel = [r for r in rows if lo <= r[3] < hi or (hi == 1.0 and r[3] == 1.0)]
        if sel:
            out.append(
                (
                    f"{lo:.1f}-{hi:.1f}",
                    len(sel),
                    sum(r[3] for r in sel) / len(sel),
                    sum(r[1] == r[2] for r in sel) / len(sel),
                )
            )
    return out


def export(pipe: Any, temperature: float, meta: dict[str, Any]) -> dict[str, Any]:
    """The fitted pipeline as plain data (see analyzer.unknowns.classifier.Model): terms in index
    order, idf and coefficients as little-endian float32 arrays in base64, so loading is
    a decode, not the parse of half a million JSON numbers."""
    union = pipe.named_steps["features"]
    svm = pipe.named_steps["model"]
    vectorizers, start = [], 0
    for name, vec in union.transformer_list:
        terms = [t for t, _ in sorted(vec.vocabulary_.items(), key=lambda kv: kv[1])]
        n = len(terms)
        weights = svm.coef_[:, start : start + n].T  # one row per feature
        vectorizers.append(
            {
                "kind": "word" if name == "word" else "char_wb",
                "ngram": list(vec.ngram_range),
                "terms": terms,
                "idf": _floats(vec.idf_),
                "coef": _floats(weights.ravel()),
            }
        )
        start += n
    return {
        "format": FORMAT,
        "classes": [str(c) for c in svm.classes_],
        "vectorizers": vectorizers,
        "intercept": [round(float(b), 6) for b in svm.intercept_],
        "temperature": temperature,
        "meta": meta,
    }


def _floats(values: Any) -> str:
    import numpy as np

    return base64.b64encode(np.asarray(values, dtype="<f4").tobytes()).decode("ascii")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="tools/train_classifier.py", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    ap.add_argument("--evaluate-only", action="store_true")
    args = ap.parse_args(argv)
    docs = documents()
    counts = Counter(d.label for d in docs)
    print(f"{len(docs)} documents: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    ev = evaluate(docs)
    print(f"held-out family accuracy: {ev.accuracy:.3f} (temperature {ev.temperature})")
    for fam, (good, total) in sorted(ev.per_family.items()):
        print(f"  {fam:<24} {good}/{total}")
    print("reliability (held-out): bin | n | stated | right")
    for b, n, stated, right in reliability(ev.rows):
        print(f"  {b} | {n} | {stated:.2f} | {right:.2f}")
    for source, truth, pred, p in ev.rows:
        if truth != pred and p >= 0.6:
            print(f"  confident miss: {source}: {truth} -> {pred} ({p:.2f})")
    if args.evaluate_only:
        return 0
    pipe = _pipeline().fit([d.text for d in docs], [d.label for d in docs])
    meta = {
        "documents": len(docs),
        "labels": dict(sorted(counts.items())),
        "held_out_family_accuracy": round(ev.accuracy, 4),
    }
    data = export(pipe, ev.temperature, meta)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    with open(args.out, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0) as gz:
        gz.write(raw)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
