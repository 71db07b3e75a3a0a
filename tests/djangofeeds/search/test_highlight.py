"""Marking the query's words in search results: escaped text, <mark> from us only."""

from djangofeeds.search.highlight import excerpt, highlight, plain_text


def test_plain_text_separates_blocks_and_decodes_entities():
    """Text of adjacent elements stays apart; entities become characters; scripts are dropped."""
    html = "<p>one</p><p>two &amp; three &lt;b&gt;</p><script>bad()</script>"

    assert plain_text(html) == "one two & three <b>"


def test_highlight_escapes_the_text_and_marks_whole_word_starts():
    """Markup in a title is shown as text; matching words (any case, stems) are marked."""
    shown = highlight("<i>Zebras</i> & a zebra-crossing", "zebra")

    assert shown == "&lt;i&gt;<mark>Zebras</mark>&lt;/i&gt; &amp; a <mark>zebra</mark>-crossing"


def test_highlight_treats_markup_in_the_query_as_words():
    """A query's markup adds no element: its words are only looked for."""
    assert highlight("mark my words", "<mark>") == "<mark>mark</mark> my words"
    assert highlight("x < y", '"><script>') == "x &lt; y"


def test_highlight_without_words_only_escapes():
    """A query with no word marks nothing."""
    assert highlight("a < b", "&&& ***") == "a &lt; b"


def test_excerpt_starts_near_the_first_match_at_a_word():
    """A match far into the text is shown with some context before it, cut at words."""
    html = "<p>" + "filler " * 100 + "the okapi is here</p><p>" + "tail " * 100 + "</p>"

    shown = excerpt(html, "okapi")

    assert shown.startswith("… filler ") and shown.endswith(" …")
    assert "the <mark>okapi</mark> is here" in shown
    assert len(shown) < 400


def test_excerpt_of_a_title_only_match_is_the_beginning():
    """When the content does not contain the words, the excerpt is its beginning, escaped."""
    assert excerpt("<p>Short &amp; sweet</p>", "zebra") == "Short &amp; sweet"
