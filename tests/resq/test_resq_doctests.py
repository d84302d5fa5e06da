"""The runnable docstring examples of the public modules are true."""

from __future__ import annotations

import doctest

import pytest

import resq
import resq._policy
import resq._urls
import resq.clock
import resq.http


@pytest.mark.parametrize("module", [resq, resq.http, resq.clock, resq._urls, resq._policy])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_every_public_name_has_a_docstring():
    import resq.transports

    names = [(resq, n) for n in resq.__all__ if n != "__version__"]
    names += [(resq.http, n) for n in resq.http.__all__]
    names += [(resq.clock, n) for n in resq.clock.__all__]
    names += [(resq.transports, n) for n in resq.transports.__all__]
    for module, name in names:
        obj = getattr(module, name)
        assert obj.__doc__, f"{module.__name__}.{name} has no docstring"
        assert "Example" in obj.__doc__, f"{module.__name__}.{name} has no example"
