"""``semv._aio.run``: ``asyncio.run`` without the repr of the result at the end."""

from __future__ import annotations

import pytest

from semv._aio import run


class _Outcome:
    reprs = 0

    def __repr__(self) -> str:
        type(self).reprs += 1
        return "outcome"


def test_returns_the_result_without_taking_its_repr() -> None:
    import asyncio
    import signal

    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("asyncio.run installs no SIGINT handler here (not the default one)")

    async def verify() -> _Outcome:
        return _Outcome()

    asyncio.run(verify())  # asyncio.run itself reprs the result (the check this avoids)
    plain = _Outcome.reprs
    _Outcome.reprs = 0
    got = run(verify())
    assert isinstance(got, _Outcome)
    assert _Outcome.reprs == 0
    assert plain >= 1


def test_an_exception_propagates() -> None:
    async def fails() -> int:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        run(fails())
