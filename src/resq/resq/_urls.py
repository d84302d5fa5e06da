"""Joining a client's ``base_url`` with a request path.

The rule is the one people expect from a client with a base URL, not RFC 3986 reference
resolution: the path is always appended to the base path (``/v1`` + ``job/42`` gives
``/v1/job/42``), a colon inside a segment (``job:42``) is never read as a scheme, dot segments
(``.``, ``..``) are removed from the joined path, and the base URL's query comes first, followed
by the path's query. Only an absolute ``http://``/``https://`` URL replaces the base.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

from resq import _validate

_ABSOLUTE = re.compile(r"^https?://", re.IGNORECASE)


def check_base_url(base_url: object) -> str:
    """Validate a client's ``base_url``: an ``http(s)`` URL with a host and no fragment."""
    value = _validate.text("Requests()", "base_url", base_url)
    parts = urlsplit(value)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ValueError(
            f"Requests(): base_url must be an absolute http:// or https:// URL, got {value!r}"
        )
    if parts.fragment or value.endswith("#"):
        raise ValueError(f"Requests(): base_url must not contain a fragment, got {value!r}")
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
