"""``Table``: rows of cells under column headers."""

from __future__ import annotations

from collections.abc import Sequence

from hedron_core._base import Component, RenderContext, check_id
from hedron_core._html import Html, element, escape_text
from hedron_core._props import check_str

__all__ = ["Cell", "Table"]

#: What a table cell may hold (``None`` renders empty).
Cell = Component | str | int | float | None


class Table(Component):
    """A data table. Cells are text, numbers, ``None`` (empty) or components.

    Args:
        columns: Column headers.
        rows: One sequence of cells per row, each as long as ``columns``.
        caption: Optional caption (the table's accessible name).
        id: Optional element id.

    Example:
        >>> render(Table(["Job", "State"], [["7", "done"]]))  # doctest: +ELLIPSIS
        '<table class="h-table"><thead><tr><th sco...>7</td><td>done</td></tr></tbody></table>'
    """

    _fields = ("columns", "rows", "caption", "id")
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    caption: str | None
    id: str | None

    def __init__(
        self,
        columns: Sequence[str],
        rows: Sequence[Sequence[Cell]],
        *,
        caption: str | None = None,
        id: str | None = None,
    ) -> None:
        if isinstance(columns, str) or not isinstance(columns, Sequence):
            raise TypeError(
                f"Table.columns must be a sequence of str, got {type(columns).__name__}"
            )
        cols = tuple(check_str(c, where=f"Table.columns[{i}]") for i, c in enumerate(columns))
        if not cols:
            raise ValueError("Table.columns must not be empty")
        if isinstance(rows, str) or not isinstance(rows, Sequence):
            raise TypeError(f"Table.rows must be a sequence of rows, got {type(rows).__name__}")
        checked: list[tuple[Cell, ...]] = []
        width = len(cols)
        for r, row in enumerate(rows):
            if isinstance(row, str) or not isinstance(row, Sequence):
                raise TypeError(f"Table.rows[{r}] must be a sequence of cells, got {row!r}")
            if len(row) != width:
                raise ValueError(f"Table.rows[{r}] has {len(row)} cells, expected {width}")
            for c, cell in enumerate(row):
                if cell is not None and (
                    isinstance(cell, bool) or not isinstance(cell, (Component, str, int, float))
                ):
                    raise TypeError(
                        f"Table.rows[{r}][{c}] must be str, int, float, None or a Component, "
                        f"got {type(cell).__name__}"
                    )
            checked.append(tuple(row))
        self._set(
            columns=cols,
            rows=tuple(checked),
            caption=None if caption is None else check_str(caption, where="Table.caption"),
            id=check_id(id, where="Table.id"),
        )

    def render(self, ctx: RenderContext) -> Html:
        if self.id:
            ctx.claim_id(self.id, where="Table.id")
        parts: list[str] = []
        if self.caption:
            parts.append(element("caption", None, [self.caption]))
        head = "".join(f'<th scope="col">{escape_text(c)}</th>' for c in self.columns)
        parts.append(Html(f"<thead><tr>{head}</tr></thead>"))
        body: list[str] = ["<tbody>"]
        for row in self.rows:
            body.append("<tr>")
            for cell in row:
                if cell is None:
                    body.append("<td></td>")
                elif isinstance(cell, str):
                    body.append(f"<td>{escape_text(cell)}</td>")
                elif isinstance(cell, Component):
                    body.append(f"<td>{cell.render(ctx)}</td>")
                else:  # the number's own digits: a subclass's __str__ could hold markup
                    shown = int.__repr__(cell) if isinstance(cell, int) else float.__repr__(cell)
                    body.append(f"<td>{shown}</td>")
            body.append("</tr>")
        body.append("</tbody>")
        parts.append(Html("".join(body)))
        return element("table", {"class": "h-table", "id": self.id}, parts)

    @classmethod
    def example(cls) -> Table:
        return cls(
            ["Job", "State", "Rows"],
            [["import-7", "succeeded", 1024], ["import-8", "running", None]],
            caption="Recent imports",
        )
