"""The house's layers (issue 29, docs/decisions.md): every import inside app/, at module level or
inside a function, goes downwards. The composition root (app/__init__.py: create_app) may import
everything; nothing imports it back."""

import ast
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app"

# Lowest first; a package may import its own layer's lower neighbours' packages and any lower
# layer, never a higher one. Features are one layer; their imports among themselves must not
# make a cycle (checked below).
LAYERS = (
    {"config", "extensions"},
    {"core"},
    {"mail"},
    {"auth"},
    {"demo"},  # the demo data's registry; features add their records to it
    {"shell"},
    {
        "account",
        "bookings",
        "automation",
        "dashboard",
        "events",
        "market",
        "messages",
        "preparation",
        "providers",
        "purchase",
        "quicktest",
        "ranking",
        "schedule",
    },  # fmt: skip
    {"admin"},
    {"__init__"},  # the composition root
)
LAYER = {package: n for n, layer in enumerate(LAYERS) for package in layer}
FEATURES = LAYERS[6] | {"admin"}


def package_imports() -> dict[tuple[str, str], list[str]]:
    """(importer's package, imported package) -> where, for every `app.` import in app/."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(APP.rglob("*.py")):
        rel = path.relative_to(APP)
        package = rel.parts[0].removesuffix(".py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                target = name.split(".")[1] if name.startswith("app.") else None
                if target and target != package:
                    edges.setdefault((package, target), []).append(f"{rel}:{node.lineno}")
    return edges


def test_every_package_has_a_layer():
    packages = {p.name.removesuffix(".py") for p in APP.iterdir() if p.suffix == ".py" or (
        p.is_dir() and (p / "__init__.py").exists())}  # fmt: skip
    assert packages - set(LAYER) == set()


def test_core_and_shell_import_no_feature():
    upward = {
        edge: where
        for edge, where in package_imports().items()
        if edge[0] in ("core", "shell") and edge[1] in FEATURES
    }
    assert upward == {}


def test_imports_go_downwards():
    upward = {
        edge: where for edge, where in package_imports().items() if LAYER[edge[1]] > LAYER[edge[0]]
    }
    assert upward == {}


def test_no_cycle_between_packages():
    edges = package_imports()
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for b in graph.get(todo.pop(), ()):
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        return seen

    cycles = {tuple(sorted((a, b))) for a in graph for b in reach(a) if a != b and a in reach(b)}
    assert cycles == set()


PRAGMAS = ("# noqa", "# fmt:", "# type:")


def _says_why(comment: str) -> bool:
    """A comment that is more than a linter's pragma."""
    return comment.startswith("#") and not comment.startswith(PRAGMAS)


def unexplained_lazy_imports() -> list[str]:
    """Every import inside a function in app/ with no comment saying why it is not at the top:
    on its own line, on the line above, or above the first import of the run it belongs to
    (imports one after another, blank lines between them allowed)."""
    found = []
    for path in sorted(APP.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        lazy = {
            node.lineno: node
            for function in ast.walk(ast.parse(source))
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
            for node in ast.walk(function)
            if isinstance(node, ast.Import | ast.ImportFrom)
        }
        explained_until = 0  # the last line of a run of imports that a comment explains
        for _, node in sorted(lazy.items()):
            own = "#" in lines[node.lineno - 1] and _says_why(
                lines[node.lineno - 1][lines[node.lineno - 1].index("#") :]
            )
            above = _says_why(lines[node.lineno - 2].strip()) if node.lineno > 1 else False
            between = lines[explained_until : node.lineno - 1]
            in_run = explained_until and all(not line.strip() for line in between)
            if own or above or in_run:
                explained_until = node.end_lineno
            else:
                found.append(f"{path.relative_to(APP.parent)}:{node.lineno}")
    return found


def test_every_lazy_import_says_why():
    """An import inside a function hides a dependency from the top of the file: it is there only
    with a comment saying why (a cycle it avoids, a slow library only one path needs, the
    composition root). Otherwise it belongs at the top."""
    assert unexplained_lazy_imports() == []


def test_every_tree_is_split_by_feature():
    """One naming scheme in every tree (docs/house.md): app/<feature>/, templates/<feature>/
    (its mails in <feature>/emails/), islands/<feature>/<island>/ and tests/<feature>/, where
    <feature> is a package of app/. Beside them only the shared folders named here."""
    root = APP.parent
    packages = {p.name for p in APP.iterdir() if (p / "__init__.py").exists()}

    def folders(tree: str) -> set[str]:
        return {p.name for p in (root / tree).iterdir() if p.is_dir() and p.name != "__pycache__"}

    assert folders("templates") - packages == {"layouts", "macros"}
    assert folders("islands") - packages == {"lib", "tests"} | (
        {"node_modules"} if (root / "islands" / "node_modules").exists() else set()
    )
    assert folders("tests") - packages <= {"browser", "faults", "gates", "scale"}
    # An island is islands/<feature>/<island>/index.js(x); no script or stylesheet of a feature
    # stands loose at the top of islands/.
    loose = {p.name for p in (root / "islands").iterdir() if p.is_file()}
    assert loose == {"build.mjs", "main.jsx", "sw.js"}
