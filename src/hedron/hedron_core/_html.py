"""The one serializer: escaping, attribute checks and element building.

Everything hedron renders goes through :func:`element`. Plain ``str`` values are always
escaped; only :class:`Html` (produced by this module) passes through unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = [
    "URL_ATTRIBUTES",
    "Html",
    "TrustedURL",
    "check_path_prefix",
    "check_url",
    "element",
    "escape_attr",
    "escape_text",
    "join",
]

# Control characters other than tab/newline/carriage return are invalid in HTML text.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# A lone surrogate (text decoded with "surrogateescape", say) cannot be encoded as UTF-8:
# left in, the whole page would fail to encode. It is shown as U+FFFD instead.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# Fast path: most values contain nothing to escape; one regex scan tells.
_TEXT_SPECIAL = re.compile(r"[&<>\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_ATTR_SPECIAL = re.compile(r"[&<>\"'`\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_ATTR_NAME = re.compile(r"^[a-z][a-z0-9]*(?:[-:][a-z0-9]+)*\Z")
_TAG_NAME = re.compile(r"^[a-z][a-z0-9]*\Z")
_VOID = frozenset({"br", "hr", "img", "input", "link", "meta", "source", "col", "wbr"})
_FORBIDDEN_TAGS = frozenset({"script", "style", "iframe", "object", "embed", "base"})

#: Attributes whose value is a URL: they must be root-relative or a :class:`TrustedURL`.
URL_ATTRIBUTES = frozenset(
    {
        "href",
        "src",
        "action",
        "formaction",
        "poster",
        "hx-get",
        "hx-post",
        "hx-put",
        "hx-patch",
        "hx-delete",
        "hx-push-url",
        "hx-replace-url",
    }
)


class Html(str):
    """A string of markup already produced by the serializer (never escaped again).

    Do not construct it from untrusted input; components return it from ``render``.
    """

    __slots__ = ()


class TrustedURL(str):
    """A URL the application vouches for (for example an absolute link to another site).

    URL attributes accept only root-relative paths (``/jobs/1``) unless the value is wrapped
    in ``TrustedURL``. ``javascript:``, ``data:`` and ``vbscript:`` are refused even then.

    Example:
        >>> Link("Docs", href=TrustedURL("https://example.org/docs"))  # doctest: +SKIP
    """

    __slots__ = ()


# Short values repeat a lot (class names, roles, labels): remember their escaped form.
_CACHE_MAX_LEN = 64
_CACHE_MAX_SIZE = 4096
_text_cache: dict[str, str] = {}
_attr_cache: dict[str, str] = {}


def _remember(cache: dict[str, str], value: str, escaped: str) -> str:
    if len(value) <= _CACHE_MAX_LEN:
        if len(cache) >= _CACHE_MAX_SIZE:
            cache.clear()
        cache[value] = escaped
    return escaped


def _clean(value: str) -> str:
    """``value`` without control characters, lone surrogates shown as U+FFFD."""
    if _CONTROL.search(value):
        value = _CONTROL.sub("", value)
    if _SURROGATE.search(value):
        value = _SURROGATE.sub("\ufffd", value)
    return value


def escape_text(value: str) -> str:
    """Escape ``value`` for use as element text (``&``, ``<``, ``>``; control chars dropped,
    lone surrogates replaced by U+FFFD).

    Example:
        >>> escape_text("<b>&")
        '&lt;b&gt;&amp;'
    """
    cached = _text_cache.get(value)
    if cached is not None:
        return cached
    escaped = value
    if _TEXT_SPECIAL.search(value):
        escaped = _clean(value)
        escaped = escaped.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _remember(_text_cache, value, escaped)


def escape_attr(value: str) -> str:
    """Escape ``value`` for use inside a double-quoted attribute.

    Example:
        >>> escape_attr('a"b')
        'a&quot;b'
    """
    cached = _attr_cache.get(value)
    if cached is not None:
        return cached
    escaped = value
    if _ATTR_SPECIAL.search(value):
        escaped = (
            _clean(value)
            .replace("&", "&amp;")
            .replace("<", "&lt;")
            .replace(">", "&gt;")
            .replace('"', "&quot;")
            .replace("'", "&#x27;")
            .replace("`", "&#x60;")
        )
    return _remember(_attr_cache, value, escaped)


_URL_BAD_CHARS = re.compile(r"[\x00-\x20\x7f\s]")
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
_DANGEROUS_SCHEMES = frozenset({"javascript", "data", "vbscript", "file"})
# Plain ``str`` URLs that passed the root-relative rule (the strictest one).
_good_urls: set[str] = set()


def check_url(value: str, *, where: str) -> str:
    """Return ``value`` if it is a safe URL for an attribute, else raise ``ValueError``.

    Root-relative paths (``/a/b?x=1``) are accepted; protocol-relative (``//host``) and
    backslash tricks are refused. A :class:`TrustedURL` may be absolute (``https://…``) but
    never uses a script-capable scheme.

    Args:
        value: The URL.
        where: ``"Component.prop"``, used in the error message.

    Example:
        >>> check_url("/jobs/1", where="Link.href")
        '/jobs/1'
    """
    if type(value) is str and value in _good_urls:
        return value
    if not isinstance(value, str):
        raise TypeError(f"{where} must be a str URL, got {type(value).__name__}")
    if not value:
        raise ValueError(f"{where} must not be empty")
    if _URL_BAD_CHARS.search(value):
        raise ValueError(f"{where} must not contain whitespace or control characters: {value!r}")
    if isinstance(value, TrustedURL):
        match = _SCHEME.match(value)
        if match and match.group(1).lower() in _DANGEROUS_SCHEMES:
            raise ValueError(f"{where} uses a forbidden URL scheme: {value!r}")
        return value
    if not value.startswith("/") or value.startswith("//") or "\\" in value:
        raise ValueError(
            f"{where} must be a root-relative path such as '/status' (got {value!r}); "
            "wrap deliberate absolute URLs in TrustedURL(...)"
        )
    if type(value) is str and len(value) <= _CACHE_MAX_LEN:
        if len(_good_urls) >= _CACHE_MAX_SIZE:
            _good_urls.clear()
        _good_urls.add(value)
    return value


# One or more "/segment"s of URL path characters (RFC 3986 pchar): no empty segment (so no
# "//host"), no backslash, no whitespace, no query or fragment, no route "{parameter}".
_PATH_PREFIX = re.compile(r"(?:/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+\Z")


def check_path_prefix(value: object, *, where: str, example: str) -> str:
    """Return ``value`` if it is a root-relative URL prefix that routes can be mounted under.

    ``/seg`` or ``/seg/seg…`` made of URL path characters, without a trailing ``/``, ``.``
    or ``..`` segments, a query, a fragment or route parameters.

    Example:
        >>> check_path_prefix("/_hedron/static", where="Hedron.static_prefix", example="/x")
        '/_hedron/static'
    """
    if not isinstance(value, str):
        raise TypeError(f"{where} must be a str such as {example!r}, got {type(value).__name__}")
    segments = value.split("/")[1:]
    if not _PATH_PREFIX.match(value) or any(seg in (".", "..") for seg in segments):
        raise ValueError(
            f"{where} must be a root-relative path such as {example!r}: '/'-separated "
            "segments of letters, digits and -._~!$&'()*+,;=:@%, no empty, '.' or '..' "
            f"segment and no trailing '/'; got {value!r}"
        )
    return value


_checked_names: set[str] = set()


def _check_attr_name(name: str, tag: str) -> None:
    if name in _checked_names:
        return
    if not _ATTR_NAME.match(name):
        raise ValueError(f"<{tag}>: invalid attribute name {name!r}")
    if name.startswith("on"):
        raise ValueError(f"<{tag}>: event-handler attribute {name!r} is not allowed")
    if name == "style" or name.startswith("hx-on"):
        raise ValueError(f"<{tag}>: attribute {name!r} is not allowed")
    if len(_checked_names) < 512:  # a small, fixed vocabulary in practice
        _checked_names.add(name)


def _attribute(tag: str, name: str, value: str | bool) -> str:
    """Check one attribute and serialize it (`` name`` or `` name="…"``)."""
    _check_attr_name(name, tag)
    if value is True:
        return " " + name
    if not isinstance(value, str):
        raise TypeError(f"<{tag}> {name}: attribute values must be str or bool")
    if name in URL_ATTRIBUTES:
        check_url(value, where=f"<{tag}> {name}")
    return f' {name}="{escape_attr(value)}"'


# ``tuple(attrs.items()) -> ' a="…" b="…"'`` for attribute sets that passed every check.
# Only sets whose values are all ``None`` or plain, short ``str`` are remembered: the checks
# depend on names and values alone, and a plain ``str`` passes only the strictest URL rule,
# so an equal key (even a ``TrustedURL`` of the same text) gets exactly the output the full
# path would give. ``bool`` values are never remembered (``True == 1``).
_attribute_sets: dict[tuple[tuple[str, object], ...], str] = {}


def _attributes(tag: str, items: tuple[tuple[str, object], ...]) -> str:
    out = "".join(
        [
            _attribute(tag, name, value)  # type: ignore[arg-type]
            for name, value in items
            if value is not None and value is not False
        ]
    )
    if all(
        value is None or (type(value) is str and len(value) <= _CACHE_MAX_LEN) for _, value in items
    ):
        if len(_attribute_sets) >= _CACHE_MAX_SIZE:
            _attribute_sets.clear()
        _attribute_sets[items] = out
    return out


_checked_tags: set[str] = set()


def element(
    tag: str,
    attrs: Mapping[str, str | bool | None] | None = None,
    children: Iterable[str] = (),
) -> Html:
    """Serialize one element; ``str`` children are escaped, :class:`Html` children are kept.

    Attributes whose value is ``None`` or ``False`` are left out; ``True`` gives a boolean
    attribute. Attribute order is the mapping's order, so output is deterministic.

    Example:
        >>> element("p", {"class": "x"}, ["a < b"])
        '<p class="x">a &lt; b</p>'
    """
    if tag not in _checked_tags:
        if not _TAG_NAME.match(tag) or tag in _FORBIDDEN_TAGS:
            raise ValueError(f"element tag {tag!r} is not allowed")
        if len(_checked_tags) < 256:
            _checked_tags.add(tag)
    out = "<" + tag
    if attrs:
        items = tuple(attrs.items())
        try:
            fragment = _attribute_sets.get(items)
        except TypeError:  # an unhashable value: the full path names it
            fragment = None
        out += fragment if fragment is not None else _attributes(tag, items)
    if tag in _VOID:
        return Html(out + ">")
    inner = "".join(
        [c if isinstance(c, Html) else (_text_cache.get(c) or escape_text(c)) for c in children]
    )
    return Html(f"{out}>{inner}</{tag}>")


def join(parts: Iterable[str]) -> Html:
    """Concatenate serializer output, escaping any plain ``str`` part.

    Example:
        >>> join([element("br"), "a&b"])
        '<br>a&amp;b'
    """
    return Html("".join(p if isinstance(p, Html) else escape_text(p) for p in parts))
