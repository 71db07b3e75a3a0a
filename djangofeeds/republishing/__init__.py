"""Republishing: the site's own feeds of what it aggregates (RSS 2.0, Atom 1.0, JSON Feed
1.1), of all active feeds, of one feed or of one category, and its public OPML blogroll."""
