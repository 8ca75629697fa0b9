"""The SQLite store: schema, migrations, and typed reads and writes. No SQL lives elsewhere."""

from store.db import NotFound, Store, StoreError, StoreTooNew, TrialRow, default_store_path, now

__all__ = ["Store", "StoreError", "StoreTooNew", "NotFound", "TrialRow", "default_store_path", "now"]
