"""Errors raised by trtlog.

Sits at the bottom of the pipeline: every other module may raise these. ``InputError`` is for
input that cannot be a trtexec log or export at all (empty, binary, JSON passed as a log, no
TensorRT line); text that merely contains unknown lines is data, not an error.
"""

from __future__ import annotations

__all__ = ["InputError", "OutputError", "TrtlogError"]


class TrtlogError(Exception):
    """Root of every error trtlog raises on purpose."""


class InputError(TrtlogError, ValueError):
    """Input that trtlog cannot read as a log or export.

    The message names the place (``path:line:col``), what was found, what was expected and
    what to do about it, so that a command-line user can act on one line of output.

    Example:
        >>> err = InputError("the file is empty", source="build.log", hint="re-run trtexec")
        >>> str(err)
        'build.log: the file is empty (hint: re-run trtexec)'
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        column: int | None = None,
        excerpt: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        self.excerpt = excerpt
        self.hint = hint
        super().__init__(self.one_line())

    @property
    def where(self) -> str:
        """``path:line:col`` with whatever of the three is known (``<input>`` for no path)."""
        parts = [self.source or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def one_line(self) -> str:
        """The message on one line, as the command-line tool prints it."""
        text = f"{self.where}: {self.message}"
        if self.hint:
            text += f" (hint: {self.hint})"
        return text

    def details(self) -> str:
        """The message with the offending text and a caret under the column, when known."""
        text = self.one_line()
        if self.excerpt is not None:
            text += "\n    " + self.excerpt
            if self.column is not None:
                text += "\n    " + " " * max(self.column - 1, 0) + "^"
        return text


class OutputError(TrtlogError, OSError):
    """A file trtlog was asked to write could not be written (disk full, read-only, no folder).

    Nothing is left under the requested name (writes go to a temporary file first); the
    message names the path, what went wrong and what to do.

    Example:
        >>> str(OutputError("no space left on the device", path="out/report.html"))
        'cannot write out/report.html: no space left on the device'
    """

    def __init__(self, message: str, *, path: str, hint: str | None = None) -> None:
        self.message = message
        self.path = path
        self.hint = hint
        super().__init__(self.one_line())

    def one_line(self) -> str:
        """The message on one line, as the command-line tool prints it."""
        text = f"cannot write {self.path}: {self.message}"
        if self.hint:
            text += f" (hint: {self.hint})"
        return text

    def __str__(self) -> str:
        return self.one_line()
