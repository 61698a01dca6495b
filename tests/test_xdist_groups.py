"""The suite's pytest-xdist groups (tests/conftest.py): a module whose fixture of module scope
starts something (a server, an app, the fuzzer) runs in one worker, not once in each."""

import re
from pathlib import Path

from tests.conftest import LONG_FIRST, XDIST_GROUPS, XDIST_MODULES, long_first, xdist_group

ROOT = Path(__file__).resolve().parent.parent


def test_every_module_with_a_module_fixture_runs_in_one_worker():
    scoped = re.compile(r"scope=\"(module|class|package)\"")
    modules = sorted(
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests").rglob("test_*.py")
        if scoped.search(path.read_text())
    )
    assert modules, "no module with a module fixture found: the search is broken"
    ungrouped = [m for m in modules if xdist_group(f"{m}::test") is None]
    assert not ungrouped, f"add these to XDIST_MODULES in tests/conftest.py: {ungrouped}"


def test_the_listed_modules_exist():
    missing = [m for m in XDIST_MODULES if not (ROOT / m).is_file()]
    assert not missing, f"XDIST_MODULES names modules that are gone: {missing}"


def test_the_fault_gates_and_the_accessibility_walk_keep_together():
    assert xdist_group("tests/faults/test_faults.py::test_x") == "faults"
    assert xdist_group("tests/faults/test_scale_out.py::test_y[2]") == "faults"
    walk = {xdist_group(f"tests/browser/{m}::t") for m in ("test_a11y.py", "test_budgets.py")}
    assert walk == {"a11y-walk"}
    assert xdist_group("tests/market/test_bids.py::test_z") is None


def test_the_longest_work_goes_out_first_and_the_short_tests_last():
    order = [
        "tests/test_migrations.py::test_every_step_down_and_up_keeps_the_data[sqlite]",
        "tests/scale/test_plans.py",
        "a11y-walk",
        "tests/gates/test_fuzz.py",
        "faults",
        "tests/browser/test_shell.py::test_x[375]",
        "tests/market/test_bids.py::test_z",
    ]
    assert sorted(order, key=long_first) == order


def test_the_long_first_list_names_what_exists():
    groups = set(XDIST_GROUPS.values())
    missing = [p for p in LONG_FIRST if p not in groups and not (ROOT / p).exists()]
    assert not missing, f"LONG_FIRST in tests/conftest.py names what is gone: {missing}"
