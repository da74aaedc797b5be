"""docs/architecture.md is true: every module it names exists, and its table of what
lives where names every package and every module of src/tilefit."""

from __future__ import annotations

import re

from checkout import ROOT

SOURCE = ROOT / "src" / "tilefit"
DOC = ROOT / "docs" / "architecture.md"

# A row of the table: | `tilefit/PACKAGE/` | `module`, `module`, ... | role |
_ROW = re.compile(r"^\| `tilefit/([\w/]+)/` \| ([^|]*) \|", re.M)
_NAME = re.compile(r"`([^`]+)`")
# A path in the prose: `verdicts/ladder.py`, `model/deadline`, `verdicts/ladder.decide`
_PATH = re.compile(r"`((?:[a-z_]+/)+[a-z_]+)(?:\.py)?(?:\.\w+)?`")


def _table(text: str) -> dict[str, list[str]]:
    """The package each row is about (its path under src/tilefit) and the names it lists."""
    return {m[1]: _NAME.findall(m[2]) for m in _ROW.finditer(text)}


def _packages() -> set[str]:
    """Every package under src/tilefit (and the schema folder), as paths below it."""
    found = {
        str(p.parent.relative_to(SOURCE))
        for p in SOURCE.rglob("__init__.py")
        if "__pycache__" not in p.parts and p.parent != SOURCE
    }
    return found | {"schema"}


def _members(package: str) -> set[str]:
    """What a package holds: its modules (without ``__init__``), or the schema's files."""
    folder = SOURCE / package
    if package == "schema":
        return {p.name for p in folder.glob("*.json")}
    return {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}


def _prose(text: str) -> str:
    """The doc without its fenced pictures (their names are drawn, not paths)."""
    return re.sub(r"```.*?```", "", text, flags=re.S)


def _unnamed(text: str) -> dict[str, list[str]]:
    """Each package the table leaves out (as ``[]``) or whose modules it does not all name."""
    table = _table(text)
    left = {package: [] for package in _packages() - set(table)}
    for package, names in table.items():
        unnamed = sorted(_members(package) - set(names))
        if unnamed:
            left[package] = unnamed
    return left


def _missing(text: str) -> list[str]:
    """Every module the table names, or path the prose names, that does not exist."""
    missing = [
        f"{package}/{name}"
        for package, names in _table(text).items()
        for name in names
        if not ((SOURCE / package / f"{name}.py").is_file() or (SOURCE / package / name).exists())
    ]
    missing += [f"{package}/" for package in _table(text) if not (SOURCE / package).is_dir()]
    for path in _PATH.findall(_prose(text)):
        top, _, below = path.partition("/")
        base = ROOT if top in {"tests", "docs", "benchmarks"} else SOURCE
        path = below if top == "tilefit" else path
        if not ((base / f"{path}.py").is_file() or (base / path).exists()):
            missing.append(path)
    return missing


def test_the_table_names_every_package_and_module() -> None:
    assert _unnamed(DOC.read_text()) == {}


def test_every_module_the_doc_names_exists() -> None:
    assert _missing(DOC.read_text()) == []


def test_a_module_left_out_or_made_up_is_found() -> None:
    """The two tests above can fail: a row without one of its modules, or naming one that
    does not exist, and a path in the prose that does not exist, are each found."""
    text = DOC.read_text()
    row = next(m[0] for m in _ROW.finditer(text) if m[1] == "toolchains/xla")
    cut = text.replace(row, row.replace("`hlo`, ", "").replace("`hlo`", ""))
    assert _unnamed(cut) == {"toolchains/xla": ["hlo"]}
    made_up = text.replace(row, row.replace("`hlo`", "`hlo`, `mhlo`"))
    assert _missing(made_up) == ["toolchains/xla/mhlo"]
    assert _missing(text + "\nSee `verdicts/oracle.py`.\n") == ["verdicts/oracle"]
