"""Third-party mechanisms audited as shipped, through the randomness facades.

:func:`diffprivlib_randomise` builds a diffprivlib mechanism (``Geometric``,
``GeometricTruncated``, ``GeometricFolded``, ``Binary``...) and audits its own ``randomise``
white-box, unmodified.  What diffprivlib 0.6.6 calls: ``Mechanism.__init__`` stores
``self._rng = check_random_state(random_state, True)``, a ``secrets.SystemRandom`` by
default, and ``randomise`` draws ``self._rng.random()`` once (``Geometric``: ``unif_rv =
random() - 0.5``, then ``floor(log(...))`` in numpy floats; ``Binary``: ``random() * (exp(eps)
+ 1) > exp(eps) + delta``).  The audit patches the attribute ``_rng`` with a
:class:`~exactdp.audit.facades.SecretsFacade` for the duration of each call (restored
after), so each ``random()`` is ``j / 2**53`` with ``j`` explored exactly
(:mod:`exactdp.audit.facades`).  No hand adapter: the hand-written
:class:`~exactdp.adapters.DiffprivlibGeometricTruncated` gives the same distribution
(tests/test_audit_facades_diffprivlib.py).

Parameters are exact and must be dyadic (the library takes floats; converted exactly).
"""

from __future__ import annotations

import warnings
from typing import Any

from exactdp.adapters import _exact_float, _missing
from exactdp.audit.facades import FacadeMechanism
from exactdp.params import ParameterError, to_fraction

__all__ = ["diffprivlib_randomise"]

#: Parameters of diffprivlib mechanisms passed as floats (converted exactly).
_FLOAT_PARAMETERS = ("epsilon", "delta", "sensitivity")


def diffprivlib_randomise(name: str, *, error_outcome: Any = None,
                          **parameters: Any) -> FacadeMechanism:
    """``diffprivlib.mechanisms.<name>(**parameters).randomise`` as ``f(c, source)``.

    ``epsilon``, ``delta`` and ``sensitivity`` are exact dyadic numbers ("1", "1/2", 2...);
    other parameters (``lower``, ``upper``) are passed as given.  ``Binary`` gets
    ``value0="0"``, ``value1="1"`` and audits inputs and outputs ``0``/``1``.
    ``error_outcome``: when given, an ``OverflowError`` of ``randomise`` (``Geometric`` and
    ``GeometricTruncated`` take ``log(0)`` when ``random() == 0.5`` and then ``int(-inf)``)
    is the outcome ``error_outcome`` instead of a broken mechanism, so that its probability
    is reported; any other exception still makes the mechanism broken.
    """
    try:
        from diffprivlib import mechanisms
    except ImportError as exc:
        raise _missing("diffprivlib", exc) from None
    cls = getattr(mechanisms, str(name), None)
    if not isinstance(cls, type) or not hasattr(cls, "randomise"):
        raise ParameterError(f"name = {name!r} is not a diffprivlib mechanism class")
    kwargs = dict(parameters)
    for key in _FLOAT_PARAMETERS:
        if key in kwargs:
            kwargs[key] = _exact_float(to_fraction(kwargs[key], key), key)  # float: exact
    binary = name == "Binary"
    if binary:
        kwargs.setdefault("value0", "0")
        kwargs.setdefault("value1", "1")
    mech = cls(**kwargs)

    def randomise(c: Any, rng: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's log(0) warning
            if binary:
                return int(mech.randomise(str(c)))
            return mech.randomise(c)

    shown = ", ".join(f"{k}={v}" for k, v in parameters.items())
    raises: dict[type[BaseException], Any] = {} if error_outcome is None else {
        OverflowError: error_outcome}
    return FacadeMechanism(randomise, "secrets", patch_attributes=[(mech, "_rng")],
                           raises_as_outcome=raises,
                           description=f"diffprivlib {name}({shown}).randomise as shipped "
                                       f"[white-box: _rng patched with a secrets facade]")
