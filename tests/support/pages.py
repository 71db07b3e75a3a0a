"""Reading rendered pages: elements by attribute, links, and where each template came from."""

from pathlib import Path

from django.test.html import parse_html

# The checkout: tests/support/pages.py is two folders below it.
CHECKOUT = Path(__file__).resolve().parents[2]
PROJECT_TEMPLATES = CHECKOUT / "project" / "templates"


def walk(html):
    """Every element of the page, with the element that holds it (None for the outermost)."""
    todo = [(parse_html(html), None)]
    while todo:
        element, parent = todo.pop()
        if element.name:
            yield element, parent
        todo.extend((child, element) for child in element.children if not isinstance(child, str))


def matches(element, attributes):
    present = dict(element.attributes)
    return all(name in present and present[name] == value for name, value in attributes.items())


def elements(html, tag=None, **attributes):
    """The page's elements with this tag and these attribute values (None: present, valueless)."""
    return [
        element
        for element, _ in walk(html)
        if tag in (None, element.name) and matches(element, attributes)
    ]


def parent_of(html, tag=None, **attributes):
    """The element that holds the first element with this tag and these attribute values."""
    for element, parent in walk(html):
        if tag in (None, element.name) and matches(element, attributes):
            return parent
    raise LookupError(f"no <{tag or '*'}> with {attributes}")


def attribute(element, name):
    return dict(element.attributes).get(name)


def links(html):
    """Where the page's links, its <link>s and its forms point."""
    found = [
        attribute(element, "href") for element in elements(html) if element.name in ("a", "link")
    ]
    found += [attribute(element, "action") for element in elements(html, "form")]
    return [url for url in found if url]


def template_origins(response):
    """{template name: file it was loaded from} of every template the response rendered."""
    return {
        template.name: Path(template.origin.name)
        for template in response.templates
        if template.origin and template.origin.name
    }
