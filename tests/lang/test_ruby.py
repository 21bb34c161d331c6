"""Ruby plugin: golden symbol table (visibility sections included), robustness, registry agreement."""

from __future__ import annotations

import pytest

from rq_engine.core.model import Visibility
from rq_engine.lang import registry
from rq_engine.lang.ruby import RubyPlugin
from tests.conftest import corpus, have
from tests.lang.golden_tables import (
    FIXTURES,
    check_golden,
    check_never_raises,
    check_registry_agrees,
    ctags_recall,
)


def test_golden_sample() -> None:
    check_golden("ruby", "sample.rb")


def test_golden_define_method_and_alias_method() -> None:
    check_golden("ruby", "define_method.rb")


def test_golden_rdoc_directives() -> None:
    check_golden("ruby", "rdoc_directives.rb")


def test_never_raises_on_garbage() -> None:
    check_never_raises(RubyPlugin(), FIXTURES / "ruby" / "sample.rb")


def test_registry_agrees() -> None:
    check_registry_agrees(RubyPlugin())
    assert RubyPlugin.constructor_name == "initialize"
    assert registry.language_for_path("app/Rakefile") == "ruby"
    assert registry.language_for_path("Gemfile") == "ruby"


def test_section_does_not_leak_out_of_a_reopened_class() -> None:
    src = b"class A\n  private\n  def x; end\nend\nclass A\n  def y; end\nend\n"
    vis = {s.name: s.visibility for s in RubyPlugin().extract(src)}
    assert vis == {"A": Visibility.PUBLIC, "x": Visibility.PRIVATE, "y": Visibility.PUBLIC}


def test_visibility_prefix_forms() -> None:
    src = (
        b"class A\n"
        b"  private attr_accessor :x, :y\n"
        b"  private_class_method def self.f; end\n"
        b"  protected alias_method :z, :x\n"
        b"  def g; end\n"
        b"end\n"
    )
    vis = {s.name: s.visibility.value for s in RubyPlugin().extract(src)}
    assert vis == {
        "A": "public",
        "x": "private",
        "y": "private",
        "f": "private",
        "z": "protected",
        "g": "public",
    }


@pytest.mark.corpus
@pytest.mark.skipif(not have("ctags"), reason="universal-ctags not installed")
def test_recall_against_ctags_on_sinatra() -> None:
    root = corpus("sinatra")
    kinds = {"class", "module", "method", "singletonMethod"}
    assert ctags_recall(root, "ruby", "Ruby", kinds) >= 0.95
