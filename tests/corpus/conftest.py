"""tests/corpus holds test data only: other libraries' own test modules (atoma's) are
kept beside their feeds as the expectations they state, never collected."""

collect_ignore_glob = ["real/**/*.py"]
