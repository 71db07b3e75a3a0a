"""What our code is measured against: written the naive way, on purpose."""
