"""djangofeeds.parsing.entries: the rules every reader applies to its entries."""

import pytest

from djangofeeds.parsing.entries import choose_guids, ttl_minutes
from djangofeeds.parsing.feedparser_reader import read_entry


def test_choose_guids_ignores_an_id_shared_by_every_entry():
    """One id on every entry says nothing: unique links are used, shared ones get a hash."""
    entries = [
        read_entry({"id": "same", "link": link, "title": "T"})
        for link in ["https://a.example/1", "https://a.example/home", "https://a.example/home"]
    ]

    guids = [entry.guid for entry in choose_guids(entries)]

    assert guids[0] == "https://a.example/1"
    assert guids[1].startswith("sha256:") and guids[1] == guids[2]


@pytest.mark.parametrize(("ttl", "minutes"), [("60", 60), ("0", None), ("", None), ("1.5", None)])
def test_ttl_minutes_reads_whole_minutes(ttl, minutes):
    """An RSS <ttl> is whole minutes; zero or anything else is no schedule."""
    assert ttl_minutes(ttl) == minutes
