"""Pickles read as data: an unpickler that refuses every global.

A Flight Recorder dump (analyzer.job.flight) is a pickle that holds only dicts, lists,
tuples, strings, numbers and None. Any other pickle is not a dump, and loading one the
usual way runs whatever callable it names (`os.system`): every global is refused, so
loading cannot run anything. A module of its own, imported only when a pickle is read:
pickle stays out of a restart controller's process otherwise (the classifier's model
is loaded without it, tests/test_classifier.py).
"""

from __future__ import annotations

import io
import pickle
from typing import Any

Error = pickle.UnpicklingError


class _Plain(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refused: it asks for {module}.{name}"[:200])

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refused: it asks for a persistent object")


def load(data: bytes) -> object:
    """The plain data a pickle holds; UnpicklingError ("refused: ...") for a global."""
    return _Plain(io.BytesIO(data)).load()
