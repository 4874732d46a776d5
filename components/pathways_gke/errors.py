"""Config errors that name the path, the bad value and what is allowed.

Every validation layer (pydantic field checks, catalog look-ups, cross-references
between sections) reports `Problem`s; `ConfigError` carries all of them at once so
a user fixes a stack file in one pass instead of one error per run.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

_MISSING = object()


@dataclass(frozen=True)
class Problem:
    path: str
    message: str
    value: Any = _MISSING

    def __str__(self) -> str:
        if self.value is _MISSING:
            return f"{self.path}: {self.message}"
        return f"{self.path}: {show_value(self.value)} {self.message}"


class ConfigError(ValueError):
    """One or more problems in a stack config; raised before any resource is registered."""

    def __init__(self, problems: Sequence[Problem]):
        self.problems = list(problems)
        super().__init__(self.render())

    def render(self) -> str:
        lines = [f"invalid config ({len(self.problems)} problem{'s' if len(self.problems) != 1 else ''}):"]
        lines += [f"  - {printable(str(p))}" for p in self.problems]
        return "\n".join(lines)

    @property
    def paths(self) -> list[str]:
        return [p.path for p in self.problems]


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")

# A URL's user-info (RFC 3986 3.2.1, `scheme://user:password@host`): everything after `//` up to the last `@` before
# the host's end (a password may hold an unescaped `@`); quotes, brackets and spaces end it, so a JSON or YAML text
# with a URL next to an e-mail address keeps the address.
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s?#\"'<>\\\[\]{}]*@")
# Query parameters that carry a credential (`?access_token=`, a signed URL's `X-Goog-Signature=`, `key=`).
_SECRET_QUERY = re.compile(r"(?i)([?&;](?:access_token|id_token|refresh_token|token|password|passwd|pwd|secret|"
                           r"client_secret|api_key|apikey|key|sig|signature|x-goog-signature|x-goog-credential|"
                           r"x-amz-signature|x-amz-credential|x-amz-security-token|auth|authorization)=)"
                           r"[^&#\s\"'<>]*")
REDACTED = "<redacted>"


def without_credentials(text: str) -> str:
    """`text` with every URL shown without its user-info and credential query values: the one redaction every
    message, JSON, log line and written plan goes through (kubeconfig `server`/`proxy-url`, a manifest URL, an
    env value holding a proxy URL). `https://user:pw@host:6443/x?token=t` -> `https://host:6443/x?token=<redacted>`."""
    if "://" not in text and "=" not in text:
        return text
    text = _URL_USERINFO.sub(r"\1", text)
    return _SECRET_QUERY.sub(lambda m: m.group(1) + REDACTED, text) if "://" in text else text


class RedactingStream:
    """A text stream that writes everything through `without_credentials` (the CLI's stdout and stderr)."""

    def __init__(self, inner: Any):
        self._inner = inner

    def write(self, text: str) -> int:
        self._inner.write(without_credentials(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class RedactingFilter:
    """A logging filter that writes a record's message through `without_credentials` (for handlers bound to a
    stream before the CLI wrapped sys.stderr)."""

    def filter(self, record: Any) -> bool:
        message = record.getMessage()
        cleaned = without_credentials(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        return True


def printable(text: str) -> str:
    """Text with every control character (a newline, NUL, a terminal colour code) written as an escape: a message
    is one line and never drives the terminal; and without credentials in URLs (`without_credentials`)."""
    text = without_credentials(text)
    return _CONTROL.sub(lambda m: {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(m.group(), f"\\x{ord(m.group()):02x}"),
                        text)


def show_value(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def join_path(*parts: str | int) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif out:
            out += f".{part}"
        else:
            out = str(part)
    return out


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    matches = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean '{matches[0]}'? " if matches else ""


def allowed(choices: Iterable[Any]) -> str:
    return "allowed: " + ", ".join(str(c) for c in choices)
