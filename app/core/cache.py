"""A bounded per-process cache for what the pages build once and reuse."""

import time
from collections import OrderedDict
from threading import Lock


class LRUCache:
    """A small least-recently-used cache, one per worker process (values are never None);
    with `ttl`, an entry is also forgotten that many seconds after it was put."""

    def __init__(self, size: int = 2048, ttl: float | None = None) -> None:
        self.size, self.ttl, self._data, self._lock = size, ttl, OrderedDict(), Lock()

    def get(self, key):
        with self._lock:
            entry = self._data.get(key)
            if entry is None:
                return None
            expires, value = entry
            if expires is not None and expires < time.monotonic():
                return None
            self._data.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        expires = None if self.ttl is None else time.monotonic() + self.ttl
        with self._lock:
            self._data[key] = (expires, value)
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def discard(self, key) -> None:
        with self._lock:
            self._data.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
