"""Security policy (host-neutral): profiles, response headers, CSRF tokens, session secrets.

Profiles:

* ``"development"``: the same CSP and headers as ``standard``; a missing or placeholder
  session secret only warns.
* ``"standard"``: CSP ``default-src 'self'`` without ``unsafe-inline``/``unsafe-eval``,
  ``frame-ancestors 'none'``, ``nosniff``, ``DENY`` framing, strict referrer policy.
  A weak session secret warns, unless ``HEDRON_ENV=production``, which refuses it.
* ``"strict"``: ``standard`` plus HSTS, cross-origin isolation headers, ``Secure`` cookies;
  a weak session secret is always refused.
"""

from __future__ import annotations

import hmac
import os
import re
import secrets
import warnings
from typing import Final, Literal

__all__ = [
    "CSRF_COOKIE",
    "CSRF_FIELD",
    "CSRF_HEADER",
    "PROFILES",
    "SAFE_METHODS",
    "HedronSecurityWarning",
    "Profile",
    "check_profile",
    "check_session_secret",
    "csp",
    "new_csrf_token",
    "security_headers",
    "tokens_match",
    "valid_token_format",
]

Profile = Literal["development", "standard", "strict"]
#: The accepted ``security=`` values.
PROFILES: Final[tuple[Profile, ...]] = ("development", "standard", "strict")

#: Cookie holding the CSRF token (double-submit pattern).
CSRF_COOKIE: Final = "hedron_csrf"
#: Request header carrying the token (htmx sends it from ``hx-headers``).
CSRF_HEADER: Final = "X-CSRF-Token"
#: Form field carrying the token (``Form`` renders it as a hidden input).
CSRF_FIELD: Final = "csrf_token"
#: Methods that never need a CSRF token.
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

_MIN_SECRET = 32
_PLACEHOLDERS = re.compile(
    r"(change|replace|placeholder|example|secret|dev|test|demo|todo|xxx|password)", re.I
)
# Placeholders are made of words (letters and separators). A random token has digits or
# symbols too, so a word that happens to occur inside one ("...dEv...") does not count.
_WORDS_ONLY = re.compile(r"[A-Za-z _.,:;!?-]+\Z")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32,128}\Z")


class HedronSecurityWarning(UserWarning):
    """Warned when a setting is acceptable in development but unsafe in production."""


def check_profile(value: object) -> Profile:
    """Validate ``security=``."""
    if value not in PROFILES:
        raise ValueError(f"Hedron.security must be one of {', '.join(PROFILES)}; got {value!r}")
    return value


def csp() -> str:
    """The Content-Security-Policy every profile sends (the page shell satisfies it)."""
    return (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; "
        "form-action 'self'; frame-ancestors 'none'"
    )


def security_headers(profile: Profile) -> list[tuple[bytes, bytes]]:
    """Headers added to every response for ``profile`` (lower-case names, ASGI form)."""
    headers = [
        (b"content-security-policy", csp().encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"strict-origin-when-cross-origin"),
        (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
    ]
    if profile == "strict":
        headers += [
            (b"strict-transport-security", b"max-age=63072000; includeSubDomains"),
            (b"cross-origin-opener-policy", b"same-origin"),
            (b"cross-origin-resource-policy", b"same-origin"),
        ]
    return headers


def is_weak_secret(secret: str | None) -> bool:
    """``True`` for a missing, short or placeholder-looking session secret."""
    if not secret:
        return True
    if len(secret) < _MIN_SECRET:
        return True
    return bool(_WORDS_ONLY.match(secret)) and bool(_PLACEHOLDERS.search(secret))


def check_session_secret(
    secret: str | None, *, profile: Profile, environ: dict[str, str] | None = None
) -> str:
    """Return the session secret to use, applying hedron's rules.

    A missing, short (< 32 chars) or placeholder secret is refused with ``ValueError`` when
    ``HEDRON_ENV=production`` or ``profile="strict"``; otherwise it warns
    (:class:`HedronSecurityWarning`) and a missing secret is replaced by a random one
    (sessions then last one process).

    Example:
        >>> len(check_session_secret("k" * 40, profile="standard"))
        40
    """
    if secret is not None and not isinstance(secret, str):
        raise TypeError(f"Hedron.session_secret must be a str, got {type(secret).__name__}")
    env = os.environ if environ is None else environ
    production = env.get("HEDRON_ENV", "").lower() == "production"
    if is_weak_secret(secret):
        reason = "missing" if not secret else "too short or a placeholder"
        message = (
            f"Hedron.session_secret is {reason}; set a random value of at least "
            f"{_MIN_SECRET} characters (for example secrets.token_urlsafe(48))"
        )
        if production or profile == "strict":
            why = "HEDRON_ENV=production" if production else 'security="strict"'
            raise ValueError(f"{message}; refused because {why}")
        warnings.warn(message, HedronSecurityWarning, stacklevel=3)
    return secret or secrets.token_urlsafe(48)


def new_csrf_token() -> str:
    """A fresh random CSRF token (URL-safe, 43 chars)."""
    return secrets.token_urlsafe(32)


def valid_token_format(value: str | None) -> bool:
    """``True`` when ``value`` looks like a token hedron issued."""
    return bool(value) and bool(_TOKEN.match(value or ""))


def tokens_match(cookie: str | None, submitted: str | None) -> bool:
    """Constant-time double-submit check: both present, well-formed and equal."""
    if not valid_token_format(cookie) or not submitted:
        return False
    assert cookie is not None
    return hmac.compare_digest(cookie.encode(), submitted.encode())
