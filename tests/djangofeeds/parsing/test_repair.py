"""djangofeeds.parsing.repair: the document as the XML readers should see it."""

from djangofeeds.parsing.repair import mostly_utf8, prepare

RSS_ITEM = b"<item><title>T</title><guid>g</guid></item>"


def test_prepare_keeps_the_first_entries_and_closes_the_document():
    """A document cut to its first entries still ends with what followed the last one."""
    body = b"<rss><channel>" + RSS_ITEM * 5 + b"</channel></rss>"

    assert prepare(body, 2) == b"<rss><channel>" + RSS_ITEM * 2 + b"</channel></rss>"


def test_prepare_drops_nul_bytes_and_forbidden_character_references():
    """NUL bytes and references to characters XML forbids go; allowed references stay."""
    body = b"<rss><title>a\x00b&#0;&#x1F;&#233;&#x10FFFF;</title></rss>"

    assert prepare(body, 10) == b"<rss><title>ab&#233;&#x10FFFF;</title></rss>"


def test_prepare_corrects_a_utf16_declaration_on_utf8_bytes():
    """A document declared UTF-16 that is not is read as UTF-8."""
    body = b'<?xml version="1.0" encoding="UTF-16"?><rss/>'

    assert prepare(body, 10) == b'<?xml version="1.0" encoding="utf-8"?><rss/>'


def test_mostly_utf8_replaces_a_few_invalid_bytes():
    """UTF-8 with one stray byte keeps its other characters instead of turning windows-1252."""
    body = "Caf\u00e9 na\u00efve ".encode() + b"\xff"

    assert mostly_utf8(body) == "Caf\u00e9 na\u00efve \ufffd".encode()
    assert mostly_utf8(b"\xe9t\xe9") == b"\xe9t\xe9"  # windows-1252 through and through


def test_prepare_keeps_a_utf16_document_in_utf16():
    """A UTF-16 document (by its BOM) is cut and cleaned as text and stays UTF-16."""
    text = "<rss><channel>" + RSS_ITEM.decode() * 3 + "\x00</channel></rss>"

    prepared = prepare(text.encode("utf-16"), 1)

    assert prepared.decode("utf-16") == "<rss><channel>" + RSS_ITEM.decode() + "</channel></rss>"
