"""Text components: ``Text``, ``Heading``, ``Code``, ``Badge``."""

from __future__ import annotations

from hedron_core._base import Component, RenderContext, check_id
from hedron_core._html import Html, element
from hedron_core._props import check_bool, check_choice, check_int, check_str
from hedron_core.components._tones import TONES, Tone

__all__ = ["Badge", "Code", "Heading", "Text"]


class Text(Component):
    """A paragraph of plain text (always escaped).

    Args:
        text: The text.
        muted: Render in a quieter colour.
        id: Optional element id.

    Example:
        >>> render(Text("Job 7 is queued"))
        '<p class="h-text">Job 7 is queued</p>'
    """

    _fields = ("text", "muted", "id")
    text: str
    muted: bool
    id: str | None

    def __init__(self, text: str, *, muted: bool = False, id: str | None = None) -> None:
        self._set(
            text=check_str(text, where="Text.text", allow_empty=True),
            muted=check_bool(muted, where="Text.muted"),
            id=check_id(id, where="Text.id"),
        )

    def render(self, ctx: RenderContext) -> Html:
        if self.id:
            ctx.claim_id(self.id, where="Text.id")
        cls = "h-text h-muted" if self.muted else "h-text"
        return element("p", {"class": cls, "id": self.id}, [self.text])

    @classmethod
    def example(cls) -> Text:
        return cls("Your report is being prepared.")


class Heading(Component):
    """A section heading (``<h1>`` … ``<h6>``).

    Args:
        text: The heading text.
        level: 1 to 6.
        id: Optional element id (useful as a link anchor).

    Example:
        >>> render(Heading("Jobs", level=2))
        '<h2 class="h-heading">Jobs</h2>'
    """

    _fields = ("text", "level", "id")
    text: str
    level: int
    id: str | None

    def __init__(self, text: str, *, level: int = 2, id: str | None = None) -> None:
        level = check_int(level, where="Heading.level", minimum=1)
        if level > 6:
            raise ValueError(f"Heading.level must be between 1 and 6, got {level}")
        self._set(
            text=check_str(text, where="Heading.text"),
            level=level,
            id=check_id(id, where="Heading.id"),
        )

    def render(self, ctx: RenderContext) -> Html:
        if self.id:
            ctx.claim_id(self.id, where="Heading.id")
        return element(f"h{self.level}", {"class": "h-heading", "id": self.id}, [self.text])

    @classmethod
    def example(cls) -> Heading:
        return cls("Monthly report", level=2)


class Code(Component):
    """Preformatted code or log output (escaped, whitespace kept).

    Args:
        code: The text to show.
        block: ``True`` for a ``<pre>`` block, ``False`` for inline ``<code>``.

    Example:
        >>> render(Code("x < 1", block=False))
        '<code class="h-code">x &lt; 1</code>'
    """

    _fields = ("code", "block")
    code: str
    block: bool

    def __init__(self, code: str, *, block: bool = True) -> None:
        self._set(
            code=check_str(code, where="Code.code", allow_empty=True),
            block=check_bool(block, where="Code.block"),
        )

    def render(self, ctx: RenderContext) -> Html:
        inner = element("code", {"class": "h-code"}, [self.code])
        return element("pre", {"class": "h-pre"}, [inner]) if self.block else inner

    @classmethod
    def example(cls) -> Code:
        return cls("step 1/3: fetching\nstep 2/3: parsing")


class Badge(Component):
    """A short label with a tone (``neutral``, ``info``, ``success``, ``warning``, ``error``).

    Args:
        text: The label.
        tone: Colour/meaning of the badge.

    Example:
        >>> render(Badge("running", tone="info"))
        '<span class="h-badge h-tone-info">running</span>'
    """

    _fields = ("text", "tone")
    text: str
    tone: Tone

    def __init__(self, text: str, *, tone: Tone = "neutral") -> None:
        self._set(
            text=check_str(text, where="Badge.text"),
            tone=check_choice(tone, TONES, where="Badge.tone"),
        )

    def render(self, ctx: RenderContext) -> Html:
        return element("span", {"class": f"h-badge h-tone-{self.tone}"}, [self.text])

    @classmethod
    def example(cls) -> Badge:
        return cls("succeeded", tone="success")
