"""Snapshot tests share the suite's fixtures: isolated RQ_HOME/config/$EDITOR, real git repos."""

from tests.conftest import isolated_home, make_repo  # noqa: F401
