"""Whether an exception is Ctrl-C's, for the places that answer it with one line.

This module imports nothing: ``tilefit.__main__`` loads it while an interrupt is
still answered by its early handler.
"""


def by_interrupt(error: BaseException) -> bool:
    """Whether ``error`` is a KeyboardInterrupt or caused by one: Python 3.11 wraps an
    exception raised while a class sets its attributes' names (``__set_name__``, as
    ``functools.cached_property`` has in the standard library's ``ipaddress``) in a
    RuntimeError, so a Ctrl-C landing in such an import arrives as that."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, KeyboardInterrupt):
            return True
        cause = cause.__cause__
    return False
