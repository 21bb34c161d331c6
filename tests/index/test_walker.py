"""The walker lists exactly what `git ls-files --cached --others --exclude-standard` lists."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from rq_engine.index.walker import walk, walk_native
from tests.conftest import Repo, git

TREE = {
    ".gitignore": "*.log\n!keep.log\nbuild/\n/root_only.py\ndocs/**/gen_*.py\n",
    "a.py": "x = 1\n",
    "keep.log": "kept by negation\n",
    "drop.log": "ignored\n",
    "root_only.py": "ignored at the root only\n",
    "build/out.py": "ignored dir\n",
    "build/keep.py": "still ignored: its directory is excluded\n",
    "pkg/root_only.py": "not anchored here: listed\n",
    "pkg/.gitignore": "*.tmp\n!important.tmp\n/local.py\n!*.log\n",
    "pkg/x.tmp": "ignored\n",
    "pkg/important.tmp": "negated\n",
    "pkg/local.py": "anchored to pkg\n",
    "pkg/deep/local.py": "not anchored here\n",
    "pkg/again.log": "re-included by the deeper !*.log\n",
    "pkg/deep/.gitignore": "*.py\n!wanted.py\n",
    "pkg/deep/wanted.py": "negated by deepest\n",
    "pkg/deep/other.py": "ignored by deepest\n",
    "docs/a/b/gen_x.py": "ignored by **\n",
    "docs/a/b/real.py": "listed\n",
    "secret.py": "ignored by info/exclude\n",
    "with space/ünïcode.py": "odd names\n",
    "z-a.py": "sorts before z/ in bytes order\n",
    "z/a.py": "\n",
    "more/.gitignore": "gen\nsub/x.py\n**/deep_*.py\n[ab]?.py\n\\#lit.py\nspace.py \n",
    "more/gen/file.py": "dir matched without a slash\n",
    "more/sub/x.py": "middle slash: anchored to more/\n",
    "more/q/sub/x.py": "not anchored here: listed\n",
    "more/a/b/deep_one.py": "**/ prefix\n",
    "more/a1.py": "character class\n",
    "more/c1.py": "not in the class\n",
    "more/#lit.py": "escaped hash\n",
    "more/space.py": "trailing space is trimmed\n",
}


def _build(root: Path) -> None:
    for rel, text in TREE.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def _git_list(root: Path, *args: str) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z", *args], cwd=root, capture_output=True, check=True
    ).stdout
    return [os.fsdecode(p) for p in out.split(b"\0") if p and not p.endswith(b"/")]


def test_git_tree_matches_git_ls_files(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo({"tracked.py": "t = 1\n"})
    _build(repo.root)
    (repo.root / ".git" / "info").mkdir(exist_ok=True)
    (repo.root / ".git" / "info" / "exclude").write_text("secret.py\n")
    # tracked-but-ignored: force-added, then matched by an ignore rule
    repo.write("vendor/forced.log", "tracked although *.log\n")
    repo.git("add", "-f", "vendor/forced.log")
    repo.git("add", "a.py", ".gitignore")
    repo.git("commit", "-q", "-m", "some")
    # a nested repository: git lists neither it nor anything inside it
    nested = repo.root / "nested"
    nested.mkdir()
    git(nested, "init", "-q")
    (nested / "inner.py").write_text("i = 1\n")
    # a tracked file deleted from the work tree is still in --cached (the indexer stats it away)
    repo.write("gone.py", "g = 1\n")
    repo.git("add", "gone.py")
    repo.git("commit", "-q", "-m", "gone")
    (repo.root / "gone.py").unlink()
    expected = _git_list(repo.root, "--cached", "--others", "--exclude-standard")
    got = walk(repo.root, git=True)
    assert got.via == "git"
    assert got.paths == expected
    listed = set(got.paths)
    assert {"vendor/forced.log", "keep.log", "pkg/important.tmp", "pkg/deep/wanted.py"} <= listed
    assert not {"secret.py", "drop.log", "build/keep.py", "nested/inner.py"} & listed
    assert {"tracked.py", "with space/ünïcode.py", "gone.py"} <= listed


def test_subtrees_restrict_the_walk(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo()
    _build(repo.root)
    got = walk(repo.root, git=True, subtrees=["pkg"])
    assert got.paths == _git_list(repo.root, "--cached", "--others", "--exclude-standard", "pkg")
    assert all(p.startswith("pkg/") for p in got.paths) and got.paths


def test_native_walker_matches_git_on_a_plain_directory(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    _build(plain)
    nested = plain / "nested"
    nested.mkdir()
    (nested / ".git").mkdir()  # another repository: not entered
    (nested / "inner.py").write_text("i = 1\n")
    # The same tree as a fresh git repository: --others applies the same rules.
    copy = tmp_path / "copy"
    shutil.copytree(plain, copy)
    shutil.rmtree(copy / "nested")
    git(copy, "init", "-q")
    (copy / "nested").mkdir()
    git(copy / "nested", "init", "-q")
    (copy / "nested" / "inner.py").write_text("i = 1\n")
    expected = _git_list(copy, "--others", "--exclude-standard")
    # secret.py is only excluded via info/exclude, which a plain directory lacks.
    assert "secret.py" in expected
    assert walk_native(plain) == expected
    assert walk(plain, git=False).paths == expected
    assert walk_native(plain, ["pkg"]) == [p for p in expected if p.startswith("pkg/")]


def test_git_failure_falls_back_to_native(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    _build(plain)
    got = walk(plain, git=True)  # claims git, but there is no repository here
    assert got.via == "native" and got.note and "git ls-files failed" in got.note
    assert "a.py" in got.paths and "drop.log" not in got.paths
