"""Build step only (the project is described in pyproject.toml): record the commit a
package is built from in rq_engine/_build_commit, which `rq --version` reads when rq
no longer runs from its checkout (`make install`, a wheel). Read from .git's files,
as rq_engine/cli/version.py does at run time; no commit found, no file."""

from __future__ import annotations

import importlib.util
import os

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _checkout_commit() -> str | None:
    spec = importlib.util.spec_from_file_location(
        "_rq_version", os.path.join(HERE, "rq_engine", "cli", "version.py")
    )
    if spec is None or spec.loader is None:
        return None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    found: str | None = mod.checkout_commit(HERE)
    return found


class BuildWithCommit(build_py):
    def run(self) -> None:
        super().run()
        sha = _checkout_commit()
        if sha and not self.editable_mode:
            target = os.path.join(self.build_lib, "rq_engine", "_build_commit")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as f:
                f.write(sha + "\n")


setup(cmdclass={"build_py": BuildWithCommit})
