"""The menu tree island (issue 17): the server's menu markup is exactly what the island renders
from its props (so hydration changes nothing), and the counts call that refreshes an open page
answers the counts the pages show, from the same cache, for the viewer's own instance only."""

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from sqlalchemy import event, select

from app.core.models import Division
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.models import PreparationItem
from app.preparation.services import add_item
from tests.shell.conftest import demo_user
from tests.shell.test_counts_and_divisions import menu_counts

ROOT = Path(__file__).resolve().parents[2]
COUNTS_URL = "/api/me/menu-counts"


class Tree(HTMLParser):
    """HTML as a list of (event, tag, sorted attributes or text): attribute order and the
    self-closing slash do not matter to hydration, everything else does."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.events: list = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.events.append(("start", tag, sorted((k, v or "") for k, v in attrs)))

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag):
        self.events.append(("end", tag))

    def handle_data(self, data):
        self.events.append(("text", data))


def render_island(props: dict) -> dict:
    node = shutil.which("node")
    assert node, "Node.js runs the islands' tests and build; it is needed here too"
    out = subprocess.run(  # noqa: S603 - our own script, our own JSON on stdin
        [node, "islands/shell/menu-tree/render.mjs"],
        input=json.dumps(props),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        timeout=30,
    )
    return json.loads(out.stdout)


def page_parts(html: str) -> tuple[str, str, dict]:
    nav = re.search(r"<nav class=\"shell-nav\"[^>]*data-menu-tree>(.*?)</nav>", html, re.S)
    user = re.search(r"<ul data-user-menu>(.*?)</ul>\s*</details>", html, re.S)
    props = re.search(
        r'<script type="application/json" id="menu-tree-props">(.*?)</script>', html, re.S
    )
    assert nav and user and props, "the shell draws the menus and the island's props"
    return nav.group(1), user.group(1), json.loads(props.group(1))


@pytest.mark.parametrize(
    ("name", "path"),
    [
        ("seller", "/begcare/items/incoming"),
        ("seller", "/market/adverts/list"),
        ("admin", "/admin/general/configuration"),
        ("station", "/begcare/station/vehicles"),
        ("global", "/user"),
    ],
)
def test_the_island_renders_exactly_the_menus_the_server_drew(as_demo, name, path):
    client, _ = as_demo(name)
    html = client.get(path).get_data(as_text=True)
    nav, user, props = page_parts(html)
    rendered = render_island(props)
    assert Tree(rendered["main"]).events == Tree(nav).events
    assert Tree(rendered["user"]).events == Tree(user).events
    if path.startswith("/admin"):
        assert props["main"]["admin"]["heading"] == "Administration"
        assert all(item["key"].startswith("admin.") for item in props["main"]["items"])


def test_the_props_carry_the_active_trail_and_the_counts_shown(as_demo):
    client, _ = as_demo("seller")
    html = client.get("/begcare/items/parked").get_data(as_text=True)
    _, _, props = page_parts(html)
    assert props["main"]["current"] == "begcare.items.parked"
    assert props["main"]["active"] == ["begcare", "begcare.items.parked"]
    begcare = next(i for i in props["main"]["items"] if i["key"] == "begcare")
    shown = menu_counts(html, "begcare")
    parked = next(c for c in begcare["children"] if c["key"] == "begcare.items.parked")
    assert parked["count"] == shown["parked"]
    assert parked["countLabel"] == f"{shown['parked']} vehicles"


def test_the_counts_call_answers_the_counts_of_the_page(as_demo):
    client, _ = as_demo("seller")
    html = client.get("/begcare").get_data(as_text=True)
    answer = client.get(COUNTS_URL)
    assert answer.status_code == 200
    counts = answer.get_json()["counts"]
    for module in ("begcare", "newcare"):
        for segment, number in menu_counts(html, module).items():
            assert counts[f"{module}.items.{segment}"]["count"] == number
    assert counts["begcare.items.incoming"]["label"].endswith("vehicles")


def test_a_moved_vehicle_shows_in_the_next_refresh_and_a_refresh_without_change_reads_no_counts(
    as_demo,
):
    client, _ = as_demo("seller")
    seller = demo_user("seller@demo.test")
    before = client.get(COUNTS_URL).get_json()["counts"]["begcare.items.incoming"]["count"]

    statements: list[str] = []
    listener = lambda *args: statements.append(args[2])  # noqa: E731
    event.listen(db.engine, "before_cursor_execute", listener)
    try:
        assert client.get(COUNTS_URL).status_code == 200
    finally:
        event.remove(db.engine, "before_cursor_execute", listener)
    assert not [s for s in statements if "item_state_count" in s], "the counts come from the cache"

    activate(seller.active_instance_id)
    division = db.session.scalars(select(Division)).first()
    add_item(
        PreparationItem(
            instance_id=seller.active_instance_id, module="begcare", division_id=division.id,
            state=2, regno="ISL17", brand="Volvo", model="EX30",
        )
    )  # fmt: skip
    db.session.flush()
    after = client.get(COUNTS_URL).get_json()["counts"]["begcare.items.incoming"]["count"]
    assert after == before + 1


def test_the_counts_call_shows_only_the_viewers_own_instance(as_demo):
    client, _ = as_demo("buyer")  # Fjordauto: market only, no vehicle modules
    counts = client.get(COUNTS_URL).get_json()["counts"]
    assert not any(key.startswith(("begcare.", "newcare.")) for key in counts)


def test_the_counts_call_needs_a_signed_in_user(demo_client):
    answer = demo_client.get(COUNTS_URL, headers={"Accept": "application/json"})
    assert answer.status_code == 401


def test_staff_pages_load_react_once_for_all_their_islands(demo_app):
    """React is one chunk of the shell's build, loaded (and preloaded) by main.js; the islands,
    the menu tree among them, import it from there instead of carrying their own copy."""
    static = Path(demo_app.static_folder) / "dist"
    manifest = json.loads((static / "manifest.json").read_text())
    shell_files = [
        p for p in static.glob("**/*.js") if "public" not in p.parts and p.name != "sw.js"
    ]
    react = [
        p.relative_to(static).as_posix()
        for p in shell_files
        if "__reactContainer$" in p.read_text()
    ]
    assert len(react) == 1, react
    assert react[0] in manifest["chunks"]
    assert "menu-tree" in manifest["islands"]
