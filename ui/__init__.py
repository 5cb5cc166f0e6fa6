"""The dashboard's Streamlit layer, split by concern: ``data`` (cached access), ``state`` (the view
and its link), ``sidebar`` (shared controls), ``frame`` (navigation), ``widgets`` (rendering).
Only ``app.py``, ``views/`` and this package import Streamlit."""
