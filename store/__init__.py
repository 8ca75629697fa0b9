"""The SQLite store: schema, migrations, and typed reads and writes. No SQL lives elsewhere."""

from testjack_tui.store.db import (
    NotFound,
    Store,
    StoreDamaged,
    StoreError,
    StoreTooNew,
    TrialRow,
    default_store_path,
    examine,
    now,
)

__all__ = [
    "Store", "StoreError", "StoreTooNew", "StoreDamaged", "NotFound", "TrialRow", "default_store_path",
    "examine", "now",
]
