"""Who may read a stored file: a file is readable only by who may see what it belongs to.

Files (`FileObject`) are shared storage; what a file belongs to (a vehicle, an advert, a quick
test, a purchase analysis, …) is known only to the feature that attached it. Each such feature
registers a rule here, at import time, next to its own models:

    from app.core import file_access

    @file_access.rule("market.advert-image")
    def _advert_image(file_object_id: int) -> bool | None:
        ...  # None: not mine; True: the viewer may see what it belongs to; False: may not

`may_read(file_object_id)` asks every rule: the file is readable when at least one rule that
claims it says True. A file no rule claims is readable by nobody (deny by default), so a new
kind of attachment stays private until its feature says who may see it. Every download route
that streams a `FileObject` by its uuid asks this first; a route that reaches a file through
its owner (an item file by its id, an advert image by the advert) has already decided.
"""

from collections.abc import Callable

Rule = Callable[[int], bool | None]
_RULES: dict[str, Rule] = {}


def rule(name: str) -> Callable[[Rule], Rule]:
    """Register `fn` as the rule named `name` (one per kind of attachment; re-registering a name
    replaces it, so a module reloaded in tests does not count twice)."""

    def decorator(fn: Rule) -> Rule:
        _RULES[name] = fn
        return fn

    return decorator


def rules() -> dict[str, Rule]:
    return dict(_RULES)


def may_read(file_object_id: int) -> bool:
    """Whether the signed-in viewer may read the file: some rule claims it and grants it."""
    return any(check(file_object_id) is True for check in _RULES.values())
