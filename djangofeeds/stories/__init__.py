"""Stories: the items of different feeds that are one article, told apart by a key."""
