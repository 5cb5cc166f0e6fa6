"""Presentation: the answer of a view, words and numbers for people, figures, the report."""
