"""Fields of a frozen dataclass made on their first read, for the :class:`~scrapy_web2text.Extraction` of a page.

Most callers of ``extract()`` read only the main text, so a result's :class:`~scrapy_web2text.Block` objects (a
frozen object per block) and its page type (a classifier run) are made when first read.  Such a field is given as
``Later(make)``: the instance keeps ``make`` aside, and :class:`Deferred`, set on the class in place of the field,
calls it on the first read and stores the value as the field's, where every later read finds it directly (as
:func:`functools.cached_property` does).  Everything else (equality, ``repr``, ``hash``, ``dataclasses.replace``,
pickling and copying) reads the field, and so sees the value.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any


class Later:
    """A field's value to make on its first read: ``make()``."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


class Deferred:
    """The descriptor of a field that may be given as :class:`Later`, consulted only while the instance does not
    hold the field's value yet.  Two threads reading the field first at once may both make it; each gets an equal
    value, and the later one stays."""

    def __init__(self, name: str) -> None:
        self.name, self.aside = name, f"_later_{name}"

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        values = instance.__dict__
        later = values.get(self.aside)
        if later is None:  # made by another thread meanwhile
            return values[self.name]
        value = values[self.name] = later.make()
        values.pop(self.aside, None)
        return value

    def pending(self, instance: Any) -> Callable[[], Any] | None:
        """What will make the field, while it is not made yet; ``None`` once it is (or when it was given)."""
        later = instance.__dict__.get(self.aside)
        return None if later is None else later.make


def deferred(*names: str) -> Callable[[type], type]:
    """Class decorator, applied above ``@dataclass(frozen=True)``: the fields ``names`` may be given as
    :class:`Later`; the instances pickle (and copy) with those fields made, not with what makes them."""

    def apply(cls: type) -> type:
        init = cls.__init__
        descriptors = [Deferred(name) for name in names]

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            init(self, *args, **kwargs)
            values = self.__dict__
            for descriptor in descriptors:
                if type(values[descriptor.name]) is Later:
                    values[descriptor.aside] = values.pop(descriptor.name)

        def __getstate__(self: Any) -> dict[str, Any]:
            for name in names:
                getattr(self, name)
            return self.__dict__

        functools.update_wrapper(__init__, init)
        cls.__init__, cls.__getstate__ = __init__, __getstate__
        for descriptor in descriptors:
            setattr(cls, descriptor.name, descriptor)
        return cls

    return apply
