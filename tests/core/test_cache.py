"""app.core.cache.LRUCache: bounded by size, least recently used out first; with a ttl, an
entry is forgotten once its time is up (the statistics' figures, the dashboard's values)."""

from app.core import cache
from app.core.cache import LRUCache


def test_the_least_recently_used_entry_goes_first():
    kept = LRUCache(size=2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # now "b" is the least recently used
    kept.put("c", 3)
    assert (kept.get("a"), kept.get("b"), kept.get("c")) == (1, None, 3)


def test_an_entry_is_forgotten_after_its_ttl(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(cache.time, "monotonic", lambda: now[0])
    kept, forever = LRUCache(ttl=60.0), LRUCache()
    kept.put("figures", "x")
    forever.put("figures", "x")
    now[0] += 59.9
    assert kept.get("figures") == "x"
    now[0] += 0.2
    assert kept.get("figures") is None
    assert forever.get("figures") == "x"
