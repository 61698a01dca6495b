"""Is a page's visible text in the page's language? Decided from the catalogue itself (issue 29).

Two checks, both from the translations the app ships:
- every menu entry of the menu tables (main and administration menus) shows its title as the
  catalogue translates it into the page's language, in the server-drawn menu and in the menu
  island's props (its first render);
- no text of the menus, the breadcrumb or the page heading is a translation that only another
  language's catalogue has (a text that is also a msgid or this language's translation of
  something may appear in any language, so it is never counted as foreign).
"""

import html
import json
import re
from functools import cache

from babel.messages.pofile import read_po
from flask import Flask
from flask_babel import force_locale

from app.core.i18n import LOCALES, babel_name, catalogue_path


def _entries(entries):
    for entry in entries:
        yield entry
        yield from _entries(entry.children)


def menu_titles(app: Flask, locale: str) -> dict[str, str]:
    """The catalogue's title of every entry of the menu tables in `locale`, by entry key (the
    entries whose title is the user's own text, such as a list name, are not in it)."""
    from app.shell.menu import ADMIN_ENTRY, MAIN_MENU

    with app.test_request_context(), force_locale(babel_name(locale)):
        return {
            entry.key: str(entry.title)
            for entry in _entries((*MAIN_MENU, ADMIN_ENTRY))
            if not isinstance(entry.title, str)
        }


@cache
def _translations(locale: str) -> tuple[frozenset[str], frozenset[str]]:
    """(msgids, msgstrs) of the locale's catalogue (singular and plural forms)."""
    with catalogue_path(locale).open("rb") as fh:
        catalog = read_po(fh)
    ids, strings = set(), set()
    for message in catalog:
        if not message.id:
            continue
        ids.update([message.id] if isinstance(message.id, str) else message.id)
        strings.update([message.string] if isinstance(message.string, str) else message.string)
    return frozenset(ids), frozenset(s for s in strings if s)


@cache
def foreign_texts(locale: str) -> frozenset[str]:
    """Translations that only other languages' catalogues have: seen on a page in `locale`,
    they are text in another language."""
    ids, own = _translations(locale)
    others = set().union(*(_translations(other)[1] for other in LOCALES if other != locale))
    return frozenset(others - own - ids)


_NAV = re.compile(r'<nav class="shell-nav".*?</nav>', re.S)
_BREADCRUMB = re.compile(r'<nav class="breadcrumb-bar".*?</nav>', re.S)
_HEADING = re.compile(r'<h1 class="page-title">.*?</h1>', re.S)
_USER_MENU = re.compile(r'<details class="user-menu">.*?</details>', re.S)
_MENU_ENTRY = re.compile(
    r'data-menu-key="([^"]+)">\s*<a\b[^>]*>\s*<span class="nav-title">([^<]*)</span>'
)
_PROPS = re.compile(r'<script type="application/json" id="menu-tree-props">(.*?)</script>', re.S)


def _texts(fragment: str) -> list[str]:
    return [t for raw in re.findall(r">([^<>]+)<", fragment) if (t := html.unescape(raw).strip())]


def _island_items(items):
    for item in items:
        yield item
        yield from _island_items(item.get("children", ()))


def language_problems(page: str, locale: str, titles: dict[str, str]) -> list[str]:
    """What on a signed-in page is not in `locale`: <html lang>, the menus' titles (the
    server's and the island's), the breadcrumb and the heading. `titles`: menu_titles()."""
    problems = []
    lang = re.search(r'<html lang="([^"]*)"', page)
    if not lang or lang.group(1) != locale:
        problems.append(f"<html lang> is {lang and lang.group(1)!r}")
    nav = _NAV.search(page)
    if nav is None:
        return [*problems, "no menu"]
    shown = [(html.unescape(k), html.unescape(t).strip()) for k, t in _MENU_ENTRY.findall(nav[0])]
    if not shown:
        problems.append("no menu entries")
    for key, title in shown:
        if key in titles and title != titles[key]:
            problems.append(f"menu {key}: {title!r}, not {titles[key]!r}")
    props = _PROPS.search(page)
    if props is None:
        problems.append("no menu island props")
    else:
        data = json.loads(html.unescape(props.group(1)))
        for item in _island_items(data["main"]["items"]):
            if item["key"] in titles and item["title"] != titles[item["key"]]:
                problems.append(f"island {item['key']}: {item['title']!r}")
        labels = [data["main"]["label"], data["user"]["label"], data["user"]["logoutLabel"]]
        labels += [item["title"] for item in data["user"]["items"]]
        labels += [
            i["toggleLabel"] for i in _island_items(data["main"]["items"]) if "toggleLabel" in i
        ]
        problems += [f"island text {t!r}" for t in labels if t in foreign_texts(locale)]
    parts = {"menu": nav[0]}
    for name, pattern in (
        ("breadcrumb", _BREADCRUMB),
        ("heading", _HEADING),
        ("user menu", _USER_MENU),
    ):
        if found := pattern.search(page):
            parts[name] = found[0]
    for name in ("breadcrumb", "heading"):
        if name not in parts:
            problems.append(f"no {name}")
    foreign = foreign_texts(locale)
    for name, fragment in parts.items():
        problems += [f"{name}: {t!r}" for t in _texts(fragment) if t in foreign]
    return problems
