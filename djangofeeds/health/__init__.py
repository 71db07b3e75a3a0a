"""Feed health: the state each import leaves a feed in, its record, and the weekly digest."""
