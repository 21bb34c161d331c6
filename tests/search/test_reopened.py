"""A module or namespace opened in many files is one definition: its best copy is
shown first, the other copies fall behind the distinct definitions of their band
(`reopened`). One real git repository, indexed by the real `rq --index`, answered
by the QueryService every face calls."""

from __future__ import annotations

from rq_engine.core.scoring import WEIGHTS
from rq_engine.search.types import Hit
from tests.search.served import Ask, ask_fixture

CORPUS = {
    # Ruby: the module's own file, then files that open it again for a class each
    "lib/shop.rb": "module Shop\n  VERSION = '1'\nend\n",
    "lib/shop/cart.rb": "module Shop\n  class Cart\n  end\nend\n",
    "lib/shop/order.rb": "module Shop\n  class Order\n  end\nend\n",
    "lib/shop/payment.rb": "module Shop\n  class Payment\n  end\nend\n",
    "lib/shop_error.rb": "class ShopError < StandardError\nend\n",
    # C++: a namespace every header opens
    "include/geo/point.h": "namespace geo {\nclass Point {};\n}\n",
    "include/geo/line.h": "namespace geo {\nclass Line {};\n}\n",
    "include/geometry.h": "class Geometry {};\n",
}


ask = ask_fixture("reopened", CORPUS, 10)


def where(h: Hit) -> str:
    return f"{h.path}:{h.line} {h.name}"


def test_a_reopened_module_is_listed_once_before_the_other_names_it_prefixes(ask: Ask) -> None:
    hits = ask("Sho")
    assert [where(h) for h in hits[:2]] == ["lib/shop.rb:1 Shop", "lib/shop_error.rb:1 ShopError"]
    assert "reopened" not in dict(hits[0].score.parts)
    copies = [h for h in hits[2:] if h.name == "Shop"]
    assert sorted(h.path for h in copies) == [
        "lib/shop/cart.rb",
        "lib/shop/order.rb",
        "lib/shop/payment.rb",
    ]
    assert all(dict(h.score.parts)["reopened"] == WEIGHTS["reopened"] for h in copies)


def test_the_copies_stay_in_their_band(ask: Ask) -> None:
    # an exact query: every copy still ranks above any prefix match
    hits = ask("Shop")
    assert [h.name for h in hits[:4]] == ["Shop"] * 4
    assert hits[4].name == "ShopError"


def test_a_namespace_every_header_opens_is_listed_once(ask: Ask) -> None:
    hits = ask("ge")  # (a prefix of both names: one band)
    names = [h.name for h in hits]
    assert names[0] == "geo" and names[1] == "Geometry", [where(h) for h in hits]
    assert names.count("geo") == 2
