"""Rule data by place (analyzer.rules.yamlfile): the built-in files sit in one folder per
kind, and a user's --patterns folder may hold any kind, told by its folder or its name."""

from __future__ import annotations

from pathlib import Path

from analyzer.rules.yamlfile import KINDS, builtin_dir, kind_of, rule_files


def test_every_builtin_file_sits_in_its_kinds_folder() -> None:
    top = sorted(p.name for p in builtin_dir().glob("*.yaml"))
    assert top == []
    for kind in KINDS:
        files = rule_files(kind, True, ())
        assert files and all(f.parent.name == kind for f in files)
    assert len(rule_files("signatures", True, ())) > 20


def test_a_user_folder_holds_any_kind(tmp_path: Path) -> None:
    layout = {
        "mine.yaml": "signatures",
        "more/gpu.yml": "signatures",
        "formats.yaml": "formats",
        "site/formats.yaml": "formats",
        "formats/launcher.yaml": "formats",
        "cascades.yaml": "cascades",
        "cascades/ours.yaml": "cascades",
        "formats/old/x.yaml": "formats",
    }
    for name in layout:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a rule file\n", encoding="utf-8")
    for kind in KINDS:
        got = {f.relative_to(tmp_path).as_posix() for f in rule_files(kind, False, [tmp_path])}
        assert got == {n for n, k in layout.items() if k == kind}, kind


def test_a_file_given_alone_is_the_kind_its_name_says(tmp_path: Path) -> None:
    for name, kind in (("x.yaml", "signatures"), ("formats.yaml", "formats")):
        f = tmp_path / name
        f.write_text("{}\n", encoding="utf-8")
        assert kind_of(Path(f.name)) == kind
        assert rule_files(kind, False, [f]) == (f,)
        others = [k for k in KINDS if k != kind]
        assert all(rule_files(k, False, [f]) == () for k in others)
