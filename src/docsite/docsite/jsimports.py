"""What a JavaScript module imports, read from its source by a small tokenizer, so that a
comment, a string or a regular expression never counts: static imports and re-exports, and
dynamic imports of a literal specifier. ``tests/test_js.py`` checks the site's JavaScript with
it (no circles, no import of what only a build makes); the runtime's build follows the Try-it
worker's imports with it (``docsite.runtime.prepared.worker_files``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

# Where `/` starts a regular expression rather than a division: after these, or at the start.
_BEFORE_REGEX = set("(,=:[!&|?{};+-*%<>~^") | {"=>", "..."}
_KEYWORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void",
             "throw", "instanceof", "yield", "await"}  # fmt: skip
_PUNCT = re.compile(r"\.\.\.|=>|[^\s\w$]")
_WORD = re.compile(r"[\w$]+")

Token = tuple[str, str]  # (kind, text): "name", "string" (its value), "computed", "punct"


def _tokens(source: str) -> Iterator[Token]:
    """The tokens that matter for imports: names, strings (a template literal without
    substitutions is one; with them, "computed"), punctuation. Comments, regular expressions
    and the text of templates are skipped."""
    i, n = 0, len(source)
    previous: Token | None = None
    braces: list[int] = []  # the open braces of each template substitution being read

    def template(start: int) -> tuple[int, bool]:
        """Read a template from ``start`` (after the backtick or a substitution's ``}``) to its
        end or its next substitution: (where it stopped, whether at a substitution)."""
        j = start
        while j < n:
            if source[j] == "\\":
                j += 2
            elif source[j] == "`":
                return j + 1, False
            elif source.startswith("${", j):
                return j + 2, True
            else:
                j += 1
        raise ValueError("unterminated template literal")

    while i < n:
        char = source[i]
        token: Token | None = None
        if char.isspace():
            i += 1
            continue
        if source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
            continue
        if source.startswith("/*", i):
            i = source.index("*/", i + 2) + 2
            continue
        if char in "'\"":
            j = i + 1
            while source[j] != char:
                j += 2 if source[j] == "\\" else 1
            token, i = ("string", source[i + 1 : j]), j + 1
        elif char == "`" or (char == "}" and braces and braces[-1] == 0):
            if char == "}":
                braces.pop()
            end, substitution = template(i + 1)
            if substitution:
                braces.append(0)
                token = ("computed", "")
            elif char == "`":
                token = ("string", source[i + 1 : end - 1])
            else:
                token = ("computed", "")
            i = end
        elif char == "/" and (
            previous is None
            or (previous[0] == "punct" and previous[1] in _BEFORE_REGEX)
            or (previous[0] == "name" and previous[1] in _KEYWORDS)
        ):
            j, in_class = i + 1, False
            while in_class or source[j] != "/":
                if source[j] == "\\":
                    j += 1
                elif source[j] in "[]":
                    in_class = source[j] == "["
                j += 1
            match = _WORD.match(source, j + 1)
            i = match.end() if match else j + 1
            token = ("computed", "")  # a regular expression: a value, not a name
        elif match := _WORD.match(source, i):
            token, i = ("name", match.group()), match.end()
        else:
            punct = _PUNCT.match(source, i)
            assert punct is not None
            token, i = ("punct", punct.group()), punct.end()
            if braces and token[1] in "{}":
                braces[-1] += 1 if token[1] == "{" else -1
        previous = token
        yield token


def imports(source: str) -> tuple[list[str], int]:
    """The specifiers ``source`` imports (static imports and re-exports, dynamic imports of a
    literal), and how many dynamic imports take a computed address."""
    tokens = list(_tokens(source))
    found: list[str] = []
    computed = 0
    for i, (kind, text) in enumerate(tokens):
        if kind != "name" or text not in ("import", "export"):
            continue
        if i and tokens[i - 1] == ("punct", "."):
            continue  # a property of that name
        following = tokens[i + 1 : i + 4]
        if text == "import" and following[:1] == [("punct", "(")]:
            literal = len(following) == 3 and following[1][0] == "string"
            literal = literal and following[2] == ("punct", ")")
            if literal:
                found.append(following[1][1])
            computed += not literal
        elif text == "import" and following[:1] and following[0][0] == "string":
            found.append(following[0][1])  # import "x" (for its effects)
        elif text == "import" and following[:1] == [("punct", ".")]:
            continue  # import.meta
        elif text == "import" or following[:1] in ([("punct", "{")], [("punct", "*")]):
            for j in range(i + 1, len(tokens) - 1):  # to the statement's `from "x"`
                if tokens[j] == ("punct", ";") or tokens[j][0] in ("string", "computed"):
                    break
                if tokens[j] == ("name", "from") and tokens[j + 1][0] == "string":
                    found.append(tokens[j + 1][1])
                    break
    return found, computed
