"""The one clock read a white-box audit allows: a log record's timestamp no code can see.

:func:`private_log_time` tells it apart (:meth:`exactdp.audit.escape.Watch.seen`)."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

from exactdp.audit.callers import kind

__all__ = ["private_log_time"]


#: format fields of a log record that carry its time
_TIME_FIELDS = ("asctime", "created", "msecs")


def private_log_time(frame: FrameType | None) -> bool:
    """Whether a clock read from ``frame`` is the timestamp ``logging`` gives a record made
    by ``logger.info(...)`` and the like, in a configuration where no code but
    ``logging``'s own sees that record and no text it writes holds the time: the record
    factory, the logger classes, every handler the record reaches (stream, file, null or
    the last-resort handler, of exactly those classes) and every filter (exactly
    ``logging.Filter``) are ``logging``'s, and no formatter's format names ``asctime``,
    ``created``, ``msecs`` or ``relativeCreated``.  The time then never reaches the
    output: the read is not the mechanism's randomness.  Anything else -- a handler,
    filter, formatter or record factory of other code, which could hand the time back --
    is a clock read like any other."""
    while frame is not None and kind(frame.f_code.co_filename) == "implementation":
        frame = frame.f_back  # the timing count's recorder of the clock
    logging: Any = sys.modules.get("logging")
    record = getattr(logging, "LogRecord", None)  # None while logging is being imported:
    if record is None or frame is None or \
            frame.f_code is not record.__init__.__code__:  # its body's read is an escape
        return False
    make = frame.f_back
    log = make.f_back if make is not None else None
    if make is None or log is None or make.f_code is not logging.Logger.makeRecord.__code__ \
            or log.f_code is not logging.Logger._log.__code__:
        return False
    logger = log.f_locals.get("self")
    if logger is None or type(logger) not in (logging.Logger, logging.RootLogger) or \
            logging.getLogRecordFactory() is not logging.LogRecord:
        return False
    handlers: list[Any] = []
    filters = list(logger.filters)
    node = logger
    while node is not None:
        handlers += node.handlers
        if not node.propagate:
            break
        node = node.parent
    if not handlers and logging.lastResort is not None:
        handlers = [logging.lastResort]
    allowed = (logging.StreamHandler, logging.FileHandler, logging.NullHandler,
               type(logging.lastResort))
    for handler in handlers:
        if type(handler) not in allowed:
            return False
        filters += handler.filters
        form = handler.formatter
        if form is not None and (type(form) is not logging.Formatter or any(
                field in str(getattr(form, "_fmt", "")).lower() for field in _TIME_FIELDS)):
            return False
    return all(type(f) is logging.Filter for f in filters)


