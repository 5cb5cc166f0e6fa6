"""The store and the importers: DuckDB, files, snapshots."""
