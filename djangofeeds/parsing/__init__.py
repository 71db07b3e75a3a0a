"""Parsing: feed bytes to plain data, no database (``readers.parse`` chooses the reader)."""
