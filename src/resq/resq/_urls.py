"""Joining a client's ``base_url`` with a request path.

The rule is the one people expect from a client with a base URL, not RFC 3986 reference
resolution: the path is always appended to the base path (``/v1`` + ``job/42`` gives
``/v1/job/42``), a colon inside a segment (``job:42``) is never read as a scheme, dot segments
(``.``, ``..``) are removed from the joined path, and the base URL's query comes first, followed
by the path's query. Only an absolute ``http://``/``https://`` URL replaces the base.
"""

from __future__ import annotations

import ipaddress
import re
import string
from urllib.parse import SplitResult, urlsplit, urlunsplit

from resq import _validate

_ABSOLUTE = re.compile(r"^https?://", re.IGNORECASE)
# Whitespace and control characters: urlsplit() silently drops some of them (tab, CR, LF).
_BAD_CHARS = re.compile(r"[\x00-\x20\x7f-\x9f\s]")
# A host name's ASCII characters (RFC 3986 reg-name: unreserved, sub-delims, pct-encoded).
_HOST_ASCII = frozenset(string.ascii_letters + string.digits + "-._~!$&'()*+,;=%")


def _valid_host(parts: SplitResult) -> bool:
    hostport = parts.netloc.rpartition("@")[2]
    if hostport.startswith("["):  # an IPv6 literal, optionally with a zone: [fe80::1%eth0]
        inside, closed, after = hostport[1:].partition("]")
        if not closed or not (after == "" or after.startswith(":")):
            return False
        try:
            ipaddress.IPv6Address(inside.partition("%")[0])
        except ValueError:
            return False
        return True
    host = hostport.partition(":")[0]
    return bool(host) and all(c in _HOST_ASCII or (not c.isascii() and c.isalnum()) for c in host)


def check_base_url(base_url: object, *, where: str = "Requests()") -> str:
    """Validate a client's ``base_url``: an ``http(s)`` URL with a valid host (and port), no
    whitespace or control character, and no fragment."""
    value = _validate.text(where, "base_url", base_url)
    bad = _BAD_CHARS.search(value)
    if bad:
        raise ValueError(
            f"{where}: base_url must not contain whitespace or control characters (found "
            f"{bad.group()!r}; percent-encode it in a path, e.g. %20 for a space), got {value!r}"
        )
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - parses the port: "Port out of range", "could not be cast"
    except ValueError as exc:
        raise ValueError(f"{where}: base_url is not a valid URL ({exc}), got {value!r}") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ValueError(
            f"{where}: base_url must be an absolute http:// or https:// URL, got {value!r}"
        )
    if not _valid_host(parts):
        raise ValueError(
            f"{where}: base_url has an invalid host {parts.netloc!r} (expected a name such as "
            f"api.example.com, an IPv4 address or an IPv6 one in brackets), got {value!r}"
        )
    if parts.fragment or value.endswith("#"):
        raise ValueError(f"{where}: base_url must not contain a fragment, got {value!r}")
    return value


def remove_dot_segments(path: str) -> str:
    """Remove ``.`` and ``..`` segments from an absolute path (RFC 3986, section 5.2.4)."""
    segments = path.split("/")[1:]
    out: list[str] = []
    for segment in segments:
        if segment == ".":
            continue
        if segment == "..":
            if out:
                out.pop()
            continue
        out.append(segment)
    result = "/" + "/".join(out)
    if segments and segments[-1] in (".", "..") and not result.endswith("/"):
        result += "/"
    return result


def join_url(base_url: str, path: str) -> str:
    """Join ``path`` onto ``base_url`` (see the module docstring for the rule).

    Example:
        >>> join_url("https://api.example.com/v1?key=k", "jobs/a:1/../42?x=1")
        'https://api.example.com/v1/jobs/42?key=k&x=1'
    """
    if _ABSOLUTE.match(path):
        return path
    base = urlsplit(base_url)
    rest, hash_sign, fragment = path.partition("#")
    rel_path, _, rel_query = rest.partition("?")
    base_path = base.path or "/"
    joined = base_path.rstrip("/") + "/" + rel_path.lstrip("/") if rel_path else base_path
    query = "&".join(q for q in (base.query, rel_query) if q)
    url = urlunsplit((base.scheme, base.netloc, remove_dot_segments(joined), query, ""))
    return url + hash_sign + fragment if hash_sign else url
