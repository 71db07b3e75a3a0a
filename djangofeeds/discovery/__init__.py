"""Discovery: from a URL a person gives to the feeds to subscribe to (a page's links, OPML)."""
