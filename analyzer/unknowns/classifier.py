"""The shipped failure classifier: masked failure region -> category probabilities.

Trained with scikit-learn (`tools/train_classifier.py`), shipped as plain JSON
(vocabularies, idf weights, coefficients, a temperature): loading it runs no pickle and
no code, and predicting needs neither scikit-learn nor numpy, so a restart controller
pays milliseconds, not the second it takes to import them. The feature code below
reproduces scikit-learn's `TfidfVectorizer` (word 1-2-grams and `char_wb` 3-5-grams,
sublinear tf, l2 norm) exactly; tests/test_classifier.py holds the two to the same
probabilities.
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import re
import sys
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from .masking import mask

MODEL_PATH = Path(__file__).parent / "model" / "classifier.json.gz"
FORMAT = "ha-analyze/classifier/1"
TOKEN = r"(?u)\b\w\w+\b"
_TOKEN = re.compile(TOKEN)
_SPACES = re.compile(r"\s\s+")


def region_text(messages: Sequence[str]) -> str:
    """What the model reads: the messages of the region's lines, masked, one per line."""
    return "\n".join(mask(x) for x in messages)


def _word_ngrams(text: str, lo: int, hi: int) -> list[str]:
    tokens = _TOKEN.findall(text.lower())
    out = []
    for n in range(lo, hi + 1):
        out += [" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    return out


def _char_wb_ngrams(text: str, lo: int, hi: int) -> list[str]:
    out = []
    for word in _SPACES.sub(" ", text.lower()).split():
        w = f" {word} "
        for n in range(lo, hi + 1):
            count = len(w) - n + 1
            if count <= 1:  # a word no longer than n counts once, as scikit-learn does
                out.append(w[:n])
                break
            out.extend(w[i : i + n] for i in range(count))
    return out


@dataclass(frozen=True)
class _Vectorizer:
    kind: str  # "word" or "char_wb"
    lo: int
    hi: int
    vocabulary: dict[str, int]
    idf: array[float]
    coef: array[float]  # feature-major: the weights of feature j are [j*k, (j+1)*k)

    def transform(self, text: str) -> dict[int, float]:
        grams = (_word_ngrams if self.kind == "word" else _char_wb_ngrams)(text, self.lo, self.hi)
        counts = Counter(self.vocabulary[g] for g in grams if g in self.vocabulary)
        vec = {j: (1.0 + math.log(c)) * self.idf[j] for j, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in vec.values()))
        return {j: v / norm for j, v in vec.items()} if norm else {}


@dataclass(frozen=True)
class Prediction:
    category: str
    probability: float
    alternatives: tuple[tuple[str, float], ...]  # the next best, most probable first


class Model:
    """A linear model over concatenated tf-idf blocks, with softmax and a temperature."""

    def __init__(self, data: dict[str, Any]) -> None:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} model")
        self.classes: list[str] = list(data["classes"])
        self.vectorizers = [
            _Vectorizer(
                v["kind"],
                v["ngram"][0],
                v["ngram"][1],
                {t: j for j, t in enumerate(v["terms"])},
                _floats(v["idf"]),
                _floats(v["coef"]),
            )
            for v in data["vectorizers"]
        ]
        for v in self.vectorizers:
            if len(v.idf) != len(v.vocabulary) or len(v.coef) != len(v.idf) * len(self.classes):
                raise ValueError("model arrays do not match its vocabulary")
        self.intercept: list[float] = data["intercept"]
        self.temperature: float = data["temperature"]

    def decision(self, text: str) -> list[float]:
        scores = list(self.intercept)
        k = len(scores)
        for vec in self.vectorizers:
            for j, x in vec.transform(text).items():
                for c, w in enumerate(vec.coef[j * k : (j + 1) * k]):
                    scores[c] += w * x
        return scores

    def probabilities(self, text: str) -> list[float]:
        scores = [s / self.temperature for s in self.decision(text)]
        top = max(scores)
        exp = [math.exp(s - top) for s in scores]
        total = sum(exp)
        return [e / total for e in exp]

    def predict(self, messages: Sequence[str]) -> Prediction:
        """The category of a failure region, given its lines' messages."""
        probs = self.probabilities(region_text(messages))
        ranked = sorted(zip(self.classes, probs, strict=True), key=lambda cp: -cp[1])
        (best, p), rest = ranked[0], ranked[1:4]
        return Prediction(best, p, tuple((c, round(q, 4)) for c, q in rest))

    def strongest_line(self, messages: Sequence[str], category: str, among: Sequence[int]) -> int:
        """The index of the line (of those `among`) that alone argues most for
        `category`: the evidence to show a person, since a model's verdict must still
        point at a line."""
        k = self.classes.index(category)
        return max(among, key=lambda i: (self.decision(mask(messages[i]))[k], i))


def _floats(b64: str) -> array[float]:
    out = array("f")
    out.frombytes(base64.b64decode(b64))
    if sys.byteorder == "big":
        out.byteswap()
    return out


@lru_cache(maxsize=2)
def load(path: Path = MODEL_PATH) -> Model | None:
    """The model, or None when none is shipped (a source checkout before training)."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return Model(json.load(f))
    except (OSError, ValueError, KeyError, TypeError, EOFError):
        return None
