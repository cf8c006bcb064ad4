"""Pickles read as data: an unpickler that refuses every global, every key that is a
container, and more items than a dump can hold.

A Flight Recorder dump (analyzer.job.flight) is a pickle that holds only dicts, lists,
tuples, strings, numbers and None. Any other pickle is not a dump, and loading one the
usual way runs whatever callable it names (`os.system`): every global is refused, so
loading cannot run anything.

Loading must not crash either. Hashing a tuple recurses in C without a depth check, so
a key that is a two-million-deep tuple (2 KB gzipped) overflows the C stack: the
process dies of SIGSEGV and a supervisor with it. C's unpickler hashes every dict key
and set item with no hook to refuse one, so this reads with Python's (about four times
slower: 0.3 s for a real 1.6 MB dump) and refuses a key or set item that is not a
string, a number, bytes, None or a flat tuple of those: no dump has one. Values may
nest as deep as their bytes allow (freeing them does not recurse); flight.py never
hashes or prints one it has not checked. Items are counted, so a dump cannot make
more list and dict slots than MAX_ITEMS (memory: eight bytes each).

A module of its own, imported only when a pickle is read: pickle stays out of a
restart controller's process otherwise (the classifier's model is loaded without it,
tests/test_classifier.py).
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable
from time import monotonic
from typing import Any, ClassVar

Error = pickle.UnpicklingError

# list, dict and set slots one pickle may fill: a 20,000-entry buffer with 60-frame
# stacks holds about 5 million; eight bytes each
MAX_ITEMS = 8_000_000
# items between two looks at the clock when a deadline is set (a look costs ~50 ns; 4,096
# items take ~2 ms)
_CLOCK_EVERY = 4096

_SCALARS = (str, int, float, bytes, bool, type(None))


def _flat(key: object) -> bool:
    """A key that hashes without recursion: a scalar, or a tuple of scalars."""
    if isinstance(key, _SCALARS):
        return True
    return type(key) is tuple and all(isinstance(k, _SCALARS) for k in key)


# Python's unpickler (typeshed knows only C's interface: its opcode methods and
# `dispatch` table are untyped)
_Python: Any = pickle._Unpickler


class _Plain(_Python):  # type: ignore[misc]
    """Python's unpickler with globals refused and hashing and item counts guarded."""

    dispatch: ClassVar[dict[int, Callable[[Any], None]]] = dict(_Python.dispatch)

    def __init__(self, data: bytes, stop_at: float | None) -> None:
        super().__init__(io.BytesIO(data))
        self.items = 0
        self.stack: list[object] = []
        self.stop_at = stop_at
        self._look_at = _CLOCK_EVERY

    def find_class(self, module: str, name: str) -> Any:
        raise Error(f"refused: it asks for {module}.{name}"[:200])

    def persistent_load(self, pid: Any) -> Any:
        raise Error("refused: it asks for a persistent object")

    def _count(self, n: int) -> None:
        self.items += n
        if self.items > MAX_ITEMS:
            raise Error(f"refused: more than {MAX_ITEMS:,} items")
        if self.items >= self._look_at and self.stop_at is not None:
            self._look_at = self.items + _CLOCK_EVERY
            if monotonic() > self.stop_at:
                raise Error(DEADLINE)

    def _keys(self, keys: list[object]) -> None:
        self._count(len(keys))
        if not all(map(_flat, keys)):
            raise Error("refused: a key or set item that is a container")

    def _setitem(self) -> None:
        self._keys([self.stack[-2]])
        super().load_setitem()

    # A bulk opcode (SETITEMS, DICT, ADDITEMS, FROZENSET, APPENDS) takes the items above
    # the last MARK: Python's unpickler holds exactly those as `self.stack`.

    def _setitems(self) -> None:
        self._keys(self.stack[0::2])
        super().load_setitems()

    def _dict(self) -> None:
        self._keys(self.stack[0::2])
        super().load_dict()

    def _additems(self) -> None:
        self._keys(self.stack)
        super().load_additems()

    def _frozenset(self) -> None:
        self._keys(self.stack)
        super().load_frozenset()

    def _append(self) -> None:
        self._count(1)
        super().load_append()

    def _appends(self) -> None:
        self._count(len(self.stack))
        super().load_appends()


_GUARDED: dict[bytes, Callable[[_Plain], None]] = {
    pickle.SETITEM: _Plain._setitem,
    pickle.SETITEMS: _Plain._setitems,
    pickle.DICT: _Plain._dict,
    pickle.ADDITEMS: _Plain._additems,
    pickle.FROZENSET: _Plain._frozenset,
    pickle.APPEND: _Plain._append,
    pickle.APPENDS: _Plain._appends,
}
for _op, _fn in _GUARDED.items():
    _Plain.dispatch[_op[0]] = _fn


# Python's unpickler runs at ~1.5 MB/s of dump here, and a busy machine gives it a
# fraction of a core: a dump read under a deadline stops at it, whatever its size said.
DEADLINE = "refused: the deadline was reached while reading it"


def load(data: bytes, stop_at: float | None = None) -> object:
    """The plain data a pickle holds; UnpicklingError ("refused: ...") for a global, a
    key that is a container, more than MAX_ITEMS items, or (DEADLINE) a monotonic
    `stop_at` passed while reading."""
    return _Plain(data, stop_at).load()
