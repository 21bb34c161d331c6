"""A miss is only declared after everything that moved is seen — on the quick path too.

A miss on a complete index asks what moved since the index was settled
(index/fresh.py). Its quick path stats the recorded directories while a
`git status` narrowed to the source files git tracks runs beside it. These
tests run real `rq` processes on real repositories whose source files are a
minority of what git tracks (so the narrowed status is the one asked, which a
`git` wrapper on PATH shows) and make every kind of change a developer makes:
each must be seen by the next miss, with the exit codes and output documented
(0 and the new location; 1 and nothing on stdout for a definitive miss). A hit
still forks nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Repo, Run
from tests.test_warming import SRC, Spy, locs, make_spy

# Non-source files outnumber the source ones (as Django's locale files do): the
# quick status is narrowed to `*.py` (and `*.PY`).
DOCS = {f"docs/locale/{lang}/notes.txt": f"{lang}\n" for lang in ("de", "fr", "it", "nl", "pt")}
FILES = {**SRC, **DOCS, "legacy/Old.PY": "class LegacyThing:\n    pass\n"}
IGNORE = "build/\n__pycache__/\n*.log\n"


@pytest.fixture
def spy(tmp_path: Path) -> Spy:
    return make_spy(tmp_path)


@pytest.fixture(params=["inside", "outside"])
def quiet(spy: Spy, request: pytest.FixtureRequest) -> dict[str, str]:
    """The spy's git wrapper, with the warming done in-process (nothing detached);
    inside the recheck window a miss asks git after its search, outside it (0 ms) a
    name the index does not hold asks before (search/service.py): both must see all."""
    window = {"RQ_WARM_RECHECK_MS": "0"} if request.param == "outside" else {}
    return {**spy.env, "RQ_WARM_DETACH": "0", **window}


@pytest.fixture
def narrowed(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], spy: Spy, quiet: dict[str, str]
) -> Repo:
    """An indexed repository whose misses take the narrowed quick status."""
    repo = make_repo({**FILES, ".gitignore": IGNORE})
    assert rq("--index", str(repo.root), env=quiet).code == 0
    assert miss(rq, repo, quiet).code == 1  # lists what git tracks, for the next check
    spy.clear()
    assert miss(rq, repo, quiet).code == 1
    statuses = [g for g in spy.gits() if " status " in g]
    assert statuses and all("--untracked-files=no" in g for g in statuses), spy.lines()
    assert statuses[-1].endswith("-- *.PY *.gitignore *.py"), statuses
    assert not [g for g in spy.gits() if " ls-files " in g]  # listed once per git state
    spy.clear()
    return repo


def miss(rq: Callable[..., Run], repo: Repo, env: dict[str, str]) -> Run:
    return rq("-q", "ZebraNowhere", cwd=repo.root, env=env)


def q(rq: Callable[..., Run], repo: Repo, query: str, env: dict[str, str]) -> Run:
    return rq("-q", query, cwd=repo.root, env=env)


# --- every change, seen by a miss on the narrowed path ----------------------------------


def test_an_edit_in_place(narrowed: Repo, rq: Callable[..., Run], quiet: dict[str, str]) -> None:
    with open(narrowed.root / "lib/util.py", "a") as f:
        f.write("\ndef appended_in_place():\n    pass\n")
    r = q(rq, narrowed, "appended_in_place", quiet)
    assert (r.code, locs(r)) == (0, ["lib/util.py:4"]), r.err


def test_an_edit_in_place_of_an_upper_case_suffix(
    narrowed: Repo, rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    with open(narrowed.root / "legacy/Old.PY", "a") as f:
        f.write("\ndef shouting_helper():\n    pass\n")
    r = q(rq, narrowed, "shouting_helper", quiet)
    assert (r.code, locs(r)) == (0, ["legacy/Old.PY:4"]), r.err


def test_a_staged_edit(narrowed: Repo, rq: Callable[..., Run], quiet: dict[str, str]) -> None:
    narrowed.write("app/views.py", "def staged_view(request):\n    pass\n")
    narrowed.git("add", "app/views.py")
    r = q(rq, narrowed, "staged_view", quiet)
    assert (r.code, locs(r)) == (0, ["app/views.py:1"]), r.err
    r = q(rq, narrowed, "order_view", quiet)
    assert (r.code, r.out) == (1, "")


def test_a_new_file(narrowed: Repo, rq: Callable[..., Run], quiet: dict[str, str]) -> None:
    narrowed.write("app/refunds.py", "class RefundProcessor:\n    pass\n")
    r = q(rq, narrowed, "RefundProcessor", quiet)
    assert (r.code, locs(r)) == (0, ["app/refunds.py:1"]), r.err


def test_a_new_file_among_the_non_source_files(
    narrowed: Repo, rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    narrowed.write("docs/locale/fr/conf.py", "def french_setting():\n    pass\n")
    r = q(rq, narrowed, "french_setting", quiet)
    assert (r.code, locs(r)) == (0, ["docs/locale/fr/conf.py:1"]), r.err


def test_a_deleted_file(narrowed: Repo, rq: Callable[..., Run], quiet: dict[str, str]) -> None:
    (narrowed.root / "lib/util.py").unlink()
    r = q(rq, narrowed, "slugify", quiet)
    assert (r.code, r.out) == (1, "")


def test_a_discarded_edit(narrowed: Repo, rq: Callable[..., Run], quiet: dict[str, str]) -> None:
    p = narrowed.root / "lib/util.py"
    p.write_text("def slugify_v2(text):\n    return text\n")
    assert locs(q(rq, narrowed, "slugify_v2", quiet)) == ["lib/util.py:1"]
    narrowed.git("checkout", "--", "lib/util.py")  # clean again: status no longer names it
    r = q(rq, narrowed, "slugify_v2", quiet)
    assert (r.code, r.out) == (1, "")


def test_a_new_directory(narrowed: Repo, rq: Callable[..., Run], quiet: dict[str, str]) -> None:
    narrowed.write("payments/stripe/client.py", "class StripeClient:\n    pass\n")
    r = q(rq, narrowed, "StripeClient", quiet)
    assert (r.code, locs(r)) == (0, ["payments/stripe/client.py:1"]), r.err


def test_a_commit_then_an_edit(
    narrowed: Repo, rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    narrowed.write("app/extra.py", "def committed_fn():\n    pass\n")
    narrowed.commit("extra")
    assert locs(q(rq, narrowed, "committed_fn", quiet)) == ["app/extra.py:1"]
    assert miss(rq, narrowed, quiet).code == 1  # the pathspec of the new HEAD and index
    with open(narrowed.root / "app/extra.py", "a") as f:
        f.write("\ndef edited_after_commit():\n    pass\n")
    r = q(rq, narrowed, "edited_after_commit", quiet)
    assert (r.code, locs(r)) == (0, ["app/extra.py:4"]), r.err


@pytest.mark.parametrize("var", ["GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS"])
def test_the_users_pathspec_settings_do_not_blind_it(
    narrowed: Repo, rq: Callable[..., Run], quiet: dict[str, str], var: str
) -> None:
    # (either would make `*.py` match no file in a subdirectory)
    with open(narrowed.root / "app/models.py", "a") as f:
        f.write("\ndef seen_despite_settings():\n    pass\n")
    r = q(rq, narrowed, "seen_despite_settings", {**quiet, var: "1"})
    assert (r.code, locs(r)) == (0, ["app/models.py:5"]), r.err


def test_a_committed_gitignore_edited_in_place(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    # Untracked, indexed files that a rule appended to a committed .gitignore now
    # covers: no directory changes, and the narrowed status must still name it.
    repo = make_repo({**FILES, ".gitignore": IGNORE, "docs/.gitignore": "*.tmp\n"})
    repo.write("gen/out.py", "def generated_thing():\n    pass\n")
    repo.write("docs/notes_gen.py", "def notes_thing():\n    pass\n")
    assert rq("--index", str(repo.root), env=quiet).code == 0
    for _ in range(2):  # (the first lists what git tracks: the second is narrowed)
        assert miss(rq, repo, quiet).code == 1
    cases = (
        (".gitignore", "gen/\n", "generated_thing", "gen/out.py:1"),
        ("docs/.gitignore", "notes_gen.py\n", "notes_thing", "docs/notes_gen.py:1"),
    )
    for where, rule, name, loc in cases:
        assert locs(q(rq, repo, name, quiet)) == [loc]
        with open(repo.root / where, "a") as f:  # in place: the directory keeps its mtime
            f.write(rule)
        assert miss(rq, repo, quiet).code == 1
        r = q(rq, repo, name, quiet)
        assert (r.code, r.out) == (1, ""), (where, r.out, r.err)
        repo.git("checkout", "--", where)  # (the rule goes, and the file comes back)
        assert miss(rq, repo, quiet).code == 1
        assert locs(q(rq, repo, name, quiet)) == [loc], where


# --- directories no listed file shows: each is watched too --------------------------------


def test_a_file_in_a_directory_made_empty_before_a_miss(
    narrowed: Repo, rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    (narrowed.root / "pkg").mkdir()
    assert miss(rq, narrowed, quiet).code == 1  # the root changed: the record is renewed
    narrowed.write("pkg/new_mod.py", "def in_a_new_dir():\n    pass\n")
    r = q(rq, narrowed, "in_a_new_dir", quiet)
    assert (r.code, locs(r)) == (0, ["pkg/new_mod.py:1"]), r.err


def test_a_file_in_nested_directories_made_before_a_miss(
    narrowed: Repo, rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    (narrowed.root / "deep/a/b").mkdir(parents=True)
    assert miss(rq, narrowed, quiet).code == 1
    narrowed.write("deep/a/b/leaf.py", "def deep_leaf_fn():\n    pass\n")
    r = q(rq, narrowed, "deep_leaf_fn", quiet)
    assert (r.code, locs(r)) == (0, ["deep/a/b/leaf.py:1"]), r.err


def test_a_file_in_a_directory_empty_when_indexed(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    repo = make_repo(FILES)
    (repo.root / "later").mkdir()
    (repo.root / "logs").mkdir()
    (repo.root / "logs/x.log").write_text("ignored\n")  # only an ignored file in it
    repo.write(".gitignore", IGNORE)
    repo.commit("ignore")
    assert rq("--index", str(repo.root), env=quiet).code == 0
    assert miss(rq, repo, quiet).code == 1
    repo.write("later/fill.py", "def filled_later():\n    pass\n")
    repo.write("logs/parse.py", "def parse_logs():\n    pass\n")
    for name, where in (("filled_later", "later/fill.py:1"), ("parse_logs", "logs/parse.py:1")):
        r = q(rq, repo, name, quiet)
        assert (r.code, locs(r)) == (0, [where]), (name, r.err)


def test_a_file_in_a_directory_a_checkout_brought(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], quiet: dict[str, str]
) -> None:
    repo = make_repo(FILES)
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("newpkg/mod.py", "def on_feature():\n    pass\n")
    repo.commit("feature")
    repo.git("checkout", "-q", "main")
    assert rq("--index", str(repo.root), env=quiet).code == 0
    repo.git("checkout", "-q", "feature")
    assert locs(q(rq, repo, "on_feature", quiet)) == ["newpkg/mod.py:1"]
    repo.write("newpkg/more.py", "def after_checkout():\n    pass\n")
    r = q(rq, repo, "after_checkout", quiet)
    assert (r.code, locs(r)) == (0, ["newpkg/more.py:1"]), r.err


def test_an_ignored_directory_keeps_misses_on_the_quick_path(
    narrowed: Repo, rq: Callable[..., Run], spy: Spy, quiet: dict[str, str]
) -> None:
    (narrowed.root / "build").mkdir()
    assert miss(rq, narrowed, quiet).code == 1  # the root changed: full status, new record
    (narrowed.root / "build/out.o").write_text("object\n")
    (narrowed.root / "build/gen.py").write_text("def generated_fn():\n    pass\n")
    spy.clear()
    assert miss(rq, narrowed, quiet).code == 1
    statuses = [g for g in spy.gits() if " status " in g]
    assert statuses and all("--untracked-files=no" in g for g in statuses), spy.lines()
    assert q(rq, narrowed, "generated_fn", quiet).code == 1  # git ignores it: so does rq


# --- and a hit still forks nothing ---------------------------------------------------------


def test_hits_fork_nothing_after_narrowed_misses(
    narrowed: Repo, rq: Callable[..., Run], spy: Spy, quiet: dict[str, str]
) -> None:
    spy.clear()
    inside = {k: v for k, v in quiet.items() if k != "RQ_WARM_RECHECK_MS"}  # (the misses' verdict)
    for query in ("Order", "order_view", "slgify", "LegacyThing"):  # exact, prefix, typo
        assert q(rq, narrowed, query, inside).code == 0, query
    assert spy.lines() == []  # no git, no warmer


# --- how the quick status is asked ----------------------------------------------------------


def test_with_more_directories_than_files_git_lstats_on_one_thread(
    narrowed: Repo, rq: Callable[..., Run], spy: Spy, quiet: dict[str, str]
) -> None:
    # (about one file in git's index a directory to stat here, as on Django: git's lstat
    # threads would only take the core the directory stats need; index/fresh.py)
    assert miss(rq, narrowed, quiet).code == 1
    statuses = [g for g in spy.gits() if " status " in g]
    assert statuses and all("core.preloadIndex=false" in g for g in statuses), statuses


def test_index_entries_reads_gits_count(make_repo: Callable[..., Repo]) -> None:
    from rq_engine.core.identity import git_dir
    from rq_engine.index.gitstate import index_entries

    repo = make_repo(FILES)
    gd = git_dir(str(repo.root))
    assert gd is not None
    assert index_entries(gd) == len(FILES)
    assert index_entries(str(repo.root / "nowhere")) == 0
