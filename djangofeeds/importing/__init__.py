"""Importing: claim, admit, fetch, parse, store and record one feed, and queue the rounds."""
