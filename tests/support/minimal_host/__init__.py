"""A host project with nothing but Django's defaults and the two apps (SPEC section 8)."""
