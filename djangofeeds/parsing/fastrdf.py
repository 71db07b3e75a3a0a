"""RSS 1.0 (RDF Site Summary) for the fast RSS reader: its tree in the shape of RSS 2.0's.

feedparser reads RSS 1.0 as it reads RSS 2.0 (the RSS 1.0 namespace is its
default, so ``<title>`` is a title either way), but for three things:

- the items stand beside the ``<channel>``, not inside it, and so does the image,
  of which feedparser keeps no URL;
- an item's id is its ``rdf:about``, taken as written: no link is made of it,
  nothing resolved or repaired (a ``<guid isPermaLink="false">`` of the same text
  in fastrss, where the text is ASCII and unpadded);
- the channel's ``<items>`` (an ``rdf:Seq``) and ``<image rdf:resource>`` are
  bookkeeping that neither path stores.

``as_rss`` rewrites the tree so, and raises ``Refused`` for anything else
(text inputs, attributes it does not know, RSS 0.90), which feedparser then reads.
"""

from xml.etree.ElementTree import Element

from djangofeeds.parsing.fastrss_values import Refused

RDF = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}"
RSS1 = "{http://purl.org/rss/1.0/}"
ABOUT, RESOURCE = f"{RDF}about", f"{RDF}resource"


def is_rdf(root):
    return root.tag == f"{RDF}RDF"


def as_rss(root):
    """An ``<rdf:RDF>`` tree as ``<rss><channel>`` with its items inside."""
    if root.attrib or (root.text or "").strip():
        raise Refused
    for element in root.iter():
        if element.tag.startswith(RSS1):
            element.tag = element.tag.removeprefix(RSS1)
    if not len(root):
        return Element("rss")  # no channel, no item: a feed with no entries, for feedparser too
    channels = [element for element in root if element.tag == "channel"]
    if len(channels) != 1:
        raise Refused
    channel = bookkeeping_left_out(channels[0])
    for element in root:
        if element.tag == "item":
            channel.append(item_of(element))
        elif element.tag == "image" and set(element.attrib) <= {ABOUT}:
            continue  # feedparser files no URL of it: neither path stores an image
        elif element is not channels[0]:
            raise Refused
    rss = Element("rss")
    rss.append(channel)
    return rss


def bookkeeping_left_out(channel):
    """The channel without its ``rdf:about``, ``<items>`` and ``<image rdf:resource>``."""
    if not set(channel.attrib) <= {ABOUT}:
        raise Refused
    kept = Element("channel")
    kept.text = channel.text
    for element in channel:
        if element.tag == "items":
            continue
        if element.tag == "image" and set(element.attrib) == {RESOURCE} and not len(element):
            continue
        kept.append(element)
    return kept


def item_of(item):
    """An ``<item rdf:about>`` as RSS 2.0's item with that id as a guid that is no link."""
    if not set(item.attrib) <= {ABOUT}:
        raise Refused
    about = item.get(ABOUT)
    item.attrib.clear()
    if about is not None:
        if not about.isascii() or about != about.strip() or any(c.tag == "guid" for c in item):
            raise Refused
        guid = Element("guid", isPermaLink="false")
        guid.text = about
        item.insert(0, guid)
    return item
