"""The data model and the math: pure functions over numpy/pandas/pydantic, no I/O."""
