"""Push: WebSub, the subscriber's part (a feed's hub, subscriptions, the wire protocol)."""
