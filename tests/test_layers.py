"""The house's floors, read from the code's own imports (docs/architecture.md states these rules, and only these).

1. A folder imports only the folders below it: ``views`` → ``ui`` → ``model/present`` → ``model/data`` →
   ``model/core``; ``model/cli`` stands beside ``ui`` (on ``model/present``), and neither imports the other.
2. No import cycle inside a folder, imports inside functions counted.
3. At most :data:`MOST_DEFERRED` imports inside functions, each with its reason on the line (``# deferred: ...``).
4. ``model/core`` does no file I/O: no file, database or temporary-file module, no ``open``, no reader or writer.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLOORS = {"model.core": 0, "model.data": 1, "model.present": 2, "model.cli": 3, "ui": 3, "views": 4, "app": 5}
MOST_DEFERRED = 30
IO_MODULES = {"duckdb", "tempfile", "shutil", "pathlib", "io", "glob", "sqlite3", "pickle", "urllib.request"}
IO_CALLS = {"open", "read_csv", "read_json", "read_parquet", "read_excel", "read_table", "read_text", "read_bytes",
            "write_text", "write_bytes", "to_csv", "to_parquet", "to_excel", "to_json", "connect"}


def _modules() -> dict[str, tuple[Path, ast.Module]]:
    files = [*ROOT.glob("model/**/*.py"), *ROOT.glob("ui/*.py"), *ROOT.glob("views/*.py"), ROOT / "app.py"]
    return {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): (p, ast.parse(p.read_text()))
            for p in files}


def _floor(module: str) -> str:
    return max((f for f in FLOORS if module == f or module.startswith(f + ".")), key=len, default=module)


def _imports(tree: ast.Module, known) -> list[tuple[str, ast.AST, bool]]:
    """(imported module of ours, the statement, inside a function) for every import in ``tree``."""
    inside = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
              for n in ast.walk(f)}
    typing_only = {id(n) for f in ast.walk(tree) if isinstance(f, ast.If) and getattr(f.test, "id", "") ==
                   "TYPE_CHECKING" for n in ast.walk(f)}      # names for type hints, never imported when running
    out = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in known else node.module
                     for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        out += [(name, node, id(node) in inside) for name in dict.fromkeys(names)]
    return out


def test_folders_import_only_downward_and_no_folder_holds_a_cycle():
    mods = _modules()
    edges = {m: {t for t, _, _ in _imports(tree, mods) if t in mods} for m, (_, tree) in mods.items()}
    upward = [(a, b) for a, targets in edges.items() for b in targets if _floor(a) != _floor(b) and (
        FLOORS[_floor(b)] >= FLOORS[_floor(a)])]
    assert not upward, f"imports that do not go down a floor: {upward}"
    seen: dict[str, int] = {}          # a depth-first walk per folder: 1 on the path, 2 done

    def walk(m: str, path: list[str]) -> None:
        seen[m] = 1
        for t in sorted(edges[m]):
            if _floor(t) == _floor(m) and seen.get(t) == 1:
                raise AssertionError(f"an import cycle: {' -> '.join(path[path.index(t):] + [t])}")
            if _floor(t) == _floor(m) and t not in seen:
                walk(t, path + [t])
        seen[m] = 2

    for m in sorted(mods):
        if m not in seen:
            walk(m, [m])


def test_imports_inside_functions_are_few_and_each_says_why():
    mods = _modules()
    deferred = {(p, node.lineno) for p, tree in mods.values() for _, node, inside in _imports(tree, {}) if inside}
    unsaid = [f"{p.relative_to(ROOT)}:{n}" for p, n in sorted(deferred)
              if "# deferred:" not in p.read_text().splitlines()[n - 1]]
    assert not unsaid, f"an import inside a function without '# deferred: <why>' on its line: {unsaid}"
    assert len(deferred) <= MOST_DEFERRED, f"{len(deferred)} imports inside functions (at most {MOST_DEFERRED})"


def test_the_core_reads_and_writes_no_file():
    found = []
    for m, (p, tree) in _modules().items():
        if _floor(m) != "model.core":
            continue
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) else []
            found += [f"{m} imports {n}" for n in names if n in IO_MODULES]
            if isinstance(node, ast.Call):
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                os_call = isinstance(node.func, ast.Attribute) and getattr(node.func.value, "id", "") == "os"
                if name in IO_CALLS or os_call:
                    found.append(f"{m}:{node.lineno} calls {name}")
    assert not found, found
