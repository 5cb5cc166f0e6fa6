"""The repository as a reader gets it: no merge left half done in any tracked text file."""

from __future__ import annotations

import re
import subprocess

from tests.conftest import ROOT


def test_no_tracked_file_holds_a_merge_conflict_marker():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    marker = re.compile(r"^(<{7} |>{7} |={7}$)", re.M)
    found = []
    for name in files:
        path = ROOT / name
        if path.suffix.lower() in (".png", ".pdf", ".duckdb", ".xlsx", ".gz") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}" for m in marker.finditer(text)]
    assert not found, found


def _sources():
    import ast

    for folder in ("model", "ui", "views"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path.relative_to(ROOT), ast.parse(path.read_text(encoding="utf-8"))
    yield (ROOT / "app.py").relative_to(ROOT), ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))


def test_no_module_imports_another_modules_private_names():
    """A name with a leading underscore is its module's own: another module that needs it gets a public name."""
    import ast

    found = [f"{path}:{node.lineno} {node.module}.{alias.name}"
             for path, tree in _sources() for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__"
             for alias in node.names if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert not found, found


def test_every_all_lists_public_names_that_exist():
    import ast
    import importlib

    found = []
    for path, tree in _sources():
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
                names = ast.literal_eval(node.value)
                module = importlib.import_module(".".join(path.with_suffix("").parts).removesuffix(".__init__"))
                found += [f"{path}: {n}" for n in names if n.startswith("_") or not hasattr(module, n)]
    assert not found, found
