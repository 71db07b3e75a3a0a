"""What the fuzz tests generate: hostile text, query strings, URLs and their parts."""

from urllib.parse import quote

from hypothesis import settings
from hypothesis import strategies as st

# Any character a client can send (lone surrogates cannot be encoded by any).
ANY_CHARACTER = st.characters(exclude_categories=["Cs"])
# Pieces that have broken parsers and checks before: controls, digits of other
# scripts (str.isdigit takes them, int() and the database do not), full-width
# and IDNA-mapped letters, bidi marks, markup, entities, URL delimiters.
TRICKY = [
    *("\x00", "\t", "\n", "\r", "\x7f", "\x85", "\u200b", "\u202e", "\ufeff", " "),
    # superscript two, circled one, Arabic-Indic three, full-width nine and A, dotless i...
    *("²", "①", "\u0663", "\uff19", "\uff21", "ß", "\u0131", "İ", "ﬀ", "\u3002", "\u0301"),
    *("%", "%00", "%2e", "%zz", "%ff", "%25", "+", "&", "=", ";", "@", ":", "/", "?", "#"),
    *("[", "]", "\\", "xn--", ".", "..", "-", "0", "9" * 25, "-1", "1e9"),
    *("<b>", "</p>", "<script>", "&amp;", "&lt;i&gt;", "&#0;", "]]>", "javascript:"),
]


def hostile_text(max_pieces=8):
    """Short text made of any characters and the tricky pieces above."""
    piece = st.one_of(st.text(ANY_CHARACTER, max_size=4), st.sampled_from(TRICKY))
    return st.lists(piece, max_size=max_pieces).map("".join)


def scaled(factor):
    """Settings with ``factor`` times the profile's examples (a slow surface gets fewer)."""
    return settings(max_examples=max(5, int(settings.default.max_examples * factor)))


# --- URLs --------------------------------------------------------------------

SCHEMES = ["http", "https", "HTTP", "hTTps", "ftp", "file", "javascript", "data", "", "http:"]
PORTS = st.sampled_from(
    ["0", "1", "80", "00080", "65535", "65536", "99999", "-1", "", "x", "\uff18\uff10", "1 "]
)
LOOPBACK = ["127.0.0.1", "127.1", "0x7f.0.0.1", "2130706433", "017700000001", "[::1]"]


def label():
    """One host label: plain, an A-label (valid or not), Unicode, or tricky."""
    return st.one_of(
        st.from_regex(r"[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True),
        st.builds(lambda rest: "xn--" + rest, st.from_regex(r"[a-z0-9-]{0,8}", fullmatch=True)),
        st.text(ANY_CHARACTER, min_size=1, max_size=6),
        st.sampled_from(TRICKY),
    )


def host_names(suffix=""):
    """Host names of one to three labels, then ``suffix`` (".invalid": no DNS answer)."""
    return st.lists(label(), min_size=1, max_size=3).map(lambda labels: ".".join(labels) + suffix)


def urls(hosts, ports=PORTS, *, always_a_port=False):
    """URLs put together from scheme, credentials, host, port, path, query and fragment.

    ``always_a_port``: never the scheme's default (nothing on loopback's port 80 is ours).
    """
    return st.builds(
        lambda scheme, userinfo, host, port, path, query: (
            f"{scheme}://{userinfo}{host}{'' if port is None else ':' + port}/{path}{query}"
        ),
        st.sampled_from(SCHEMES),
        st.sampled_from(["", "", "", "user@", "user:pw@", ":@", "%40@"]),
        hosts,
        ports if always_a_port else st.none() | ports,
        hostile_text(4),
        st.sampled_from(["", "", "?a=1", "?%zz", "#frag", "?\x00"]),
    )


def any_url():
    """A URL of any shape, host included (for checks that never resolve it)."""
    suffixes = st.sampled_from(["", ".com", ".example", ".", ".invalid"])
    hosts = st.one_of(
        st.builds(lambda host, suffix: host + suffix, host_names(), suffixes),
        st.sampled_from([*LOOPBACK, "10.0.0.1", "[fe80::1%25eth0]", "[::ffff:7f00:1]", "", "[::"]),
    )
    return st.one_of(urls(hosts), hostile_text(10), st.text(ANY_CHARACTER, max_size=40))


# Arabic-Indic three and full-width one are digits to str.isdigit and int(), not to the pages.
NUMBERS = ["0", "1", "2", "-1", "²", "①", "\u0663", "\uff11", "9" * 19, "9" * 5000, "1.5", " 1"]


def numbers():
    """A query parameter's value: a number of any spelling, or hostile text."""
    return st.one_of(st.sampled_from(NUMBERS), hostile_text(), st.integers().map(str))


def as_sent(value, encode):
    """``value`` percent-encoded, or raw: its UTF-8 bytes as WSGI hands them over (Latin-1)."""
    return quote(value) if encode else value.encode().decode("latin-1")
