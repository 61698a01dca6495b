"""A bounded per-process cache for what the pages build once and reuse."""

from collections import OrderedDict
from threading import Lock


class LRUCache:
    """A small least-recently-used cache, one per worker process (values are never None)."""

    def __init__(self, size: int = 2048) -> None:
        self.size, self._data, self._lock = size, OrderedDict(), Lock()

    def get(self, key):
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
