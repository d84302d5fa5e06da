"""Security policy (host-neutral): profiles, response headers, CSRF tokens, session secrets.

Profiles:

* ``"development"``: the same CSP and headers as ``standard``; a missing or weak session
  secret only warns.
* ``"standard"``: CSP ``default-src 'self'`` without ``unsafe-inline``/``unsafe-eval``,
  ``frame-ancestors 'none'``, ``nosniff``, ``DENY`` framing, strict referrer policy.
  A weak session secret warns, unless ``HEDRON_ENV=production``, which refuses it.
* ``"strict"``: ``standard`` plus HSTS, cross-origin isolation headers, ``Secure`` cookies
  (the CSRF cookie with the ``__Host-`` prefix); a weak session secret is always refused.

A session secret is weak when it is shorter than 32 characters, or when what is left of it
after taking out placeholder words ("secret", "changeme", "your", "key", ...), separators,
runs (``aaaa``, ``1234``, ``abcd``) and repeats carries less than 128 bits by a simple
estimate (characters left times log2 of their alphabet). Every output of
``secrets.token_urlsafe(24)`` or longer, or of ``secrets.token_hex(16)`` or longer, passes.

The CSRF token a page carries is an HMAC, under a key derived from the session secret, of a
random value kept in the CSRF cookie: an attacker who can plant a cookie cannot make the
token that goes with it.
"""

from __future__ import annotations

import base64
import hmac
import math
import os
import re
import secrets
import warnings
from typing import Final, Literal

__all__ = [
    "CSRF_COOKIE",
    "CSRF_FIELD",
    "CSRF_HEADER",
    "CSRF_HOST_COOKIE",
    "PROFILES",
    "SAFE_METHODS",
    "HedronSecurityWarning",
    "Profile",
    "check_profile",
    "check_session_secret",
    "csp",
    "csrf_cookie_name",
    "csrf_key",
    "csrf_token_for",
    "new_csrf_token",
    "secret_strength_bits",
    "security_headers",
    "tokens_match",
    "valid_token_format",
]

Profile = Literal["development", "standard", "strict"]
#: The accepted ``security=`` values.
PROFILES: Final[tuple[Profile, ...]] = ("development", "standard", "strict")

#: Cookie holding the random value the CSRF token is derived from (standard, development).
CSRF_COOKIE: Final = "hedron_csrf"
#: The same cookie under the ``strict`` profile: the ``__Host-`` prefix makes browsers keep
#: it only when it was set over https by this very host (no ``Domain``, ``Path=/``,
#: ``Secure``), so a sibling subdomain cannot plant one.
CSRF_HOST_COOKIE: Final = "__Host-hedron_csrf"
#: Request header carrying the token (htmx sends it from ``hx-headers``).
CSRF_HEADER: Final = "X-CSRF-Token"
#: Form field carrying the token (``Form`` renders it as a hidden input).
CSRF_FIELD: Final = "csrf_token"
#: Methods that never need a CSRF token.
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

_MIN_SECRET = 32
_MIN_SECRET_BITS = 128
# Words people put in placeholder secrets (longest first: "changeme" before "change").
_PLACEHOLDER_WORDS = sorted(
    [
        *("change", "changeme", "replace", "placeholder", "example", "secret", "secrets"),
        *("key", "dev", "develop", "test", "testing", "demo", "todo", "fixme", "xxx"),
        *("password", "passwd", "pass", "your", "yours", "here", "this", "that", "insert"),
        *("default", "sample", "session", "hedron", "app", "application", "token", "value"),
        *("production", "prod", "local", "qwerty", "asdf", "admin", "letmein", "please"),
        *("random", "string"),
    ],
    key=len,
    reverse=True,
)
_PLACEHOLDERS = re.compile("|".join(_PLACEHOLDER_WORDS), re.I)
_SEPARATORS = re.compile(r"[\s_.,:;!?/\\|+=-]+")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32,128}\Z")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_CSRF_KEY_LABEL = b"hedron csrf key v1"


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


def _drop_runs(text: str) -> str:
    """Keep one character of every run of 4+ that steps by -1, 0 or +1 (``aaaa``, ``1234``)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        j = i + 1
        if j < len(text):
            step = ord(text[j]) - ord(text[i])
            if step in (-1, 0, 1):
                while j + 1 < len(text) and ord(text[j + 1]) - ord(text[j]) == step:
                    j += 1
                if j - i >= 3:  # a run of at least 4 characters
                    out.append(text[i])
                    i = j + 1
                    continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _drop_repeats(text: str, *, least: int = 6) -> str:
    """Drop every stretch of ``least``+ characters that also starts somewhere earlier (it may
    overlap itself, so ``q7Zpq7Zpq7Zp`` keeps only its first ``q7Zp``)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        size = 0
        while i + size < len(text) and text.find(text[i : i + size + 1], 0, i + size) != -1:
            size += 1
        if size >= least:
            i += size
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def secret_strength_bits(secret: str) -> float:
    """A rough, conservative estimate of the randomness in ``secret``, in bits.

    Placeholder words, separators, runs (``aaaa``, ``1234``, ``abcd``) and repeated stretches
    are taken out; each character left counts log2 of the alphabet it and its neighbours are
    drawn from (lower case 26, upper case 26, digits 10, other 33; a secret made of hex digits
    only counts at least 16).

    Example:
        >>> secret_strength_bits("changeme-changeme-changeme-12345") < 128
        True
        >>> secret_strength_bits("q7Zp3Lm9Rw2Xk8Vb5Nc1Hd6Jf4Gs0Tyq") > 128
        True
    """
    parts = [_drop_runs(p) for p in _SEPARATORS.split(_PLACEHOLDERS.sub(" ", secret)) if p]
    left = _drop_repeats("".join(parts))
    alphabet = (
        26 * any(c.islower() for c in left)
        + 26 * any(c.isupper() for c in left)
        + 10 * any(c.isdigit() for c in left)
        + 33 * any(not c.isalnum() for c in left)
    )
    if left and all(c in _HEX_DIGITS for c in secret):  # hex: 16 symbols, even if only 0-9 show
        alphabet = max(alphabet, 16)
    return len(left) * math.log2(alphabet) if alphabet > 1 else 0.0


def is_weak_secret(secret: str | None) -> bool:
    """``True`` for a missing, short, placeholder-like or low-entropy session secret."""
    return _weakness(secret) is not None


def _weakness(secret: str | None) -> str | None:
    if not secret:
        return "missing"
    if len(secret) < _MIN_SECRET:
        return f"too short or a placeholder ({len(secret)} characters)"
    bits = secret_strength_bits(secret)
    if bits < _MIN_SECRET_BITS:
        return (
            "too short or a placeholder: it is not random enough (about "
            f"{bits:.0f} bits of randomness by hedron's estimate; {_MIN_SECRET_BITS} needed)"
        )
    return None


def check_session_secret(
    secret: str | None, *, profile: Profile, environ: dict[str, str] | None = None
) -> str:
    """Return the session secret to use, applying hedron's rules.

    A missing, short (< 32 chars), placeholder-like or not random enough secret (see the
    module docstring) is refused with ``ValueError`` when ``HEDRON_ENV=production`` or
    ``profile="strict"``; otherwise it warns (:class:`HedronSecurityWarning`) and a missing
    secret is replaced by a random one (sessions then last one process).

    Example:
        >>> len(check_session_secret(secrets.token_urlsafe(48), profile="strict"))
        64
    """
    if secret is not None and not isinstance(secret, str):
        raise TypeError(f"Hedron.session_secret must be a str, got {type(secret).__name__}")
    if secret is not None and not secret.isascii():
        try:
            secret.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(
                "Hedron.session_secret holds a lone surrogate and cannot be used as a key; "
                "use printable text such as secrets.token_urlsafe(48)"
            ) from None
    env = os.environ if environ is None else environ
    production = env.get("HEDRON_ENV", "").lower() == "production"
    reason = _weakness(secret)
    if reason is not None:
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
    """A fresh random value for the CSRF cookie (URL-safe, 43 chars)."""
    return secrets.token_urlsafe(32)


def csrf_cookie_name(profile: Profile) -> str:
    """The CSRF cookie's name: :data:`CSRF_HOST_COOKIE` under ``strict``, else
    :data:`CSRF_COOKIE`."""
    return CSRF_HOST_COOKIE if profile == "strict" else CSRF_COOKIE


def csrf_key(secret: str) -> bytes:
    """The key CSRF tokens are made with, derived from the session secret."""
    return hmac.new(secret.encode("utf-8"), _CSRF_KEY_LABEL, "sha256").digest()


def csrf_token_for(cookie: str, key: bytes) -> str:
    """The CSRF token that goes with the cookie value ``cookie``: an HMAC of it (43 chars).

    Only the app (which knows the session secret) can make it, so a cookie planted by an
    attacker comes without a token that matches it.

    Example:
        >>> key = csrf_key("k" * 48)
        >>> token = csrf_token_for("c" * 43, key)
        >>> len(token), token == csrf_token_for("c" * 43, key), valid_token_format(token)
        (43, True, True)
    """
    digest = hmac.digest(key, cookie.encode("ascii"), "sha256")
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def valid_token_format(value: str | None) -> bool:
    """``True`` when ``value`` looks like a token hedron issued."""
    return bool(value) and bool(_TOKEN.match(value or ""))


def tokens_match(expected: str | None, submitted: str | None) -> bool:
    """Constant-time check: both present, ``expected`` well-formed, and equal."""
    if not valid_token_format(expected) or not submitted or not submitted.isascii():
        return False
    assert expected is not None
    return hmac.compare_digest(expected.encode(), submitted.encode())
