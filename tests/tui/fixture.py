"""The picker's fixture repository: a small multi-language shop, indexed with the real indexer.

Shared by the pilot tests (tests/tui) and the SVG snapshots (snapshots/).
Its remote makes the repository identity deterministic (github.com/acme/shop).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from rq_engine.core.identity import checkout_for
from rq_engine.index.indexer import index_under, run_index
from rq_engine.store.db import connect
from tests.conftest import Repo

SHOP_FILES = {
    "shop/refunds.py": '''"""Refunds: money going back to the customer."""


class RefundProcessor:
    """Refunds an order, in full or in part."""

    def __init__(self, gateway):
        self.gateway = gateway

    def perform(self, order, amount=None):
        amount = order.total if amount is None else amount
        return self.gateway.refund(order.id, amount)

    def _audit_line(self, order):
        return f"refund {order.id}"


def refund_order(order, gateway):
    return RefundProcessor(gateway).perform(order)
''',
    "shop/orders.py": '''"""Orders and where they are kept."""

from dataclasses import dataclass


@dataclass
class Order:
    id: int
    total: int


class OrderRepository:
    def __init__(self):
        self._orders = {}

    def find_by_id(self, order_id):
        return self._orders.get(order_id)

    def save(self, order):
        self._orders[order.id] = order


def place_order(repository, order):
    repository.save(order)
    return order
''',
    "shop/tests/test_refunds.py": """from shop.refunds import refund_order


def test_refund_order_refunds_the_total():
    assert refund_order is not None
""",
    "web/src/checkout.ts": """export interface PaymentRequest {
  orderId: number;
  amount: number;
}

export class CheckoutForm {
  submitPayment(request: PaymentRequest): boolean {
    return request.amount > 0;
  }
}

export function formatPrice(cents: number): string {
  return (cents / 100).toFixed(2);
}
""",
    "engine/src/ledger.rs": """pub struct Ledger {
    entries: Vec<i64>,
}

impl Ledger {
    pub fn record_refund(&mut self, cents: i64) {
        self.entries.push(-cents);
    }
}

fn reconcile(ledger: &Ledger) -> i64 {
    ledger.entries.iter().sum()
}
""",
    "README.md": "# shop\n",
}

WAREHOUSE_FILES = {
    "stock/levels.py": """class StockLevel:
    def refund_restock(self, sku):
        return sku


def reorder_point(level):
    return level
""",
}


def build_shop(make_repo: Callable[..., Repo], *, index: bool = True) -> Repo:
    """The shop repository, indexed completely (coverage 'complete') unless `index` is False."""
    repo = make_repo(SHOP_FILES, name="shop", remote="https://github.com/acme/shop.git")
    if index:
        with open_store() as conn:
            index_under(conn, repo.root)
    return repo


def build_warehouse(make_repo: Callable[..., Repo]) -> Repo:
    """A second repository, for --all-repos / ctrl-a."""
    repo = make_repo(
        WAREHOUSE_FILES, name="warehouse", remote="https://github.com/acme/warehouse.git"
    )
    with open_store() as conn:
        index_under(conn, repo.root)
    return repo


def seed_only(repo: Repo, subtrees: Sequence[str]) -> None:
    """Index only `subtrees` (the indexer's seed mode): coverage stays 'warming', as when
    the first search of a big repository has seeded a few directories."""
    with open_store() as conn:
        stats = run_index(conn, checkout_for(repo.root), subtrees=subtrees)
    assert not stats.complete


class open_store:  # noqa: N801 (used as `with open_store() as conn`, like a function)
    """The store at RQ_HOME, closed on leaving the block."""

    def __enter__(self) -> sqlite3.Connection:
        self.conn = connect()
        return self.conn

    def __exit__(self, *exc: object) -> None:
        self.conn.close()
