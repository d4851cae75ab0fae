"""Fields of a frozen dataclass made on their first read, for the :class:`~scrapy_web2text.Extraction` of a page.

Most callers of ``extract()`` read only the main text, so a result's :class:`~scrapy_web2text.Block` objects (a
frozen object per block) and its page type (a classifier run) are made when first read.  Such a field is given as
``Later(make)``; :class:`Deferred`, set on the class in place of the field, calls ``make()`` on the first read and
keeps what it returns as the field's value.  Everything else (equality, ``repr``, ``hash``, ``dataclasses.replace``,
pickling through :func:`resolve_all`) reads the field and so sees the value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Later:
    """A field's value to make on its first read: ``make()``."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


class Deferred:
    """The descriptor of a dataclass field that may be given as :class:`Later`: see the module.

    The dataclass's ``__init__`` stores the field's value through :meth:`__set__` (a frozen dataclass's
    ``__setattr__`` refuses every other assignment); the value lives in the instance's ``__dict__``.  Two threads
    reading the field first at once may both make it; each gets an equal value.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        values = instance.__dict__
        value = values[self.name]
        if type(value) is Later:
            value = values[self.name] = value.make()
        return value

    def __set__(self, instance: Any, value: Any) -> None:
        instance.__dict__[self.name] = value

    def pending(self, instance: Any) -> Callable[[], Any] | None:
        """What will make the field, while it is not made yet; ``None`` once it is (or when it was given)."""
        value = instance.__dict__[self.name]
        return value.make if type(value) is Later else None


def deferred(*names: str) -> Callable[[type], type]:
    """Class decorator, applied above ``@dataclass``: the fields ``names`` may be given as :class:`Later`; and
    the instances pickle (and copy) with those fields made, not with what makes them."""

    def apply(cls: type) -> type:
        for name in names:
            setattr(cls, name, Deferred(name))

        def __getstate__(self: Any) -> dict[str, Any]:
            for name in names:
                getattr(self, name)
            return self.__dict__

        cls.__getstate__ = __getstate__
        return cls

    return apply
