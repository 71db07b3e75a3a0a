"""Fetching: a feed's bytes over HTTP, the careful way (addresses, deadlines, caps, errors)."""
