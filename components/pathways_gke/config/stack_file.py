"""Read `Pulumi.<stack>.yaml` the way the Pulumi CLI does, and turn it into the strings it hands the program.

The CLI (pulumi/pulumi `sdk/go/common/workspace/loaders.go`, `resource/config/{value,object,plaintext}.go`):

1. reads the file, drops a UTF-8 byte-order mark, and decodes it with Go's `gopkg.in/yaml.v3`
   (`sdk/go/common/encoding/marshal.go`). yaml.v3 is not YAML 1.1: only `true`/`false` (`True`, `TRUE`, ...)
   are booleans (`yes`, `on`, `y` are strings), unquoted dates stay strings, `1:30` is a string, integers
   follow Go's `strconv.ParseInt(s, 0, 64)` after dropping `_` (`0x1F`, `0o17`, `0b101`, legacy `017`), and
   merge keys (`<<`) are honoured;
2. namespaces every key without `:` with the project name (`stackConfigNamespacedWithProject`);
3. passes every top-level value to the program as a string: strings as they are, null as "", other scalars
   and objects as Go `encoding/json` text (sorted keys, `<`, `>`, `&` escaped); a `secure:` value decrypted
   and the whole key marked secret.

`read_stack_file` does 1 (with the faults the CLI would hit reported as ConfigErrors, never tracebacks);
`cli_config` does 2-3. An offline plan cannot decrypt `secure:` values: they become SECRET_PLACEHOLDER.
Pure: no Pulumi import.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any, Mapping

import yaml

from ..errors import ConfigError, Problem

SECRET_PLACEHOLDER = "[offline-plan-secret]"
MAX_EXPANDED_VALUES = 100_000  # a stack file expanding past this through aliases is refused (alias bombs)

# yaml.v3 resolve.go
_YAML_STYLE_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_RESOLVE_MAP: dict[str, tuple[str, Any]] = {
    **{v: ("bool", True) for v in ("true", "True", "TRUE")},
    **{v: ("bool", False) for v in ("false", "False", "FALSE")},
    **{v: ("null", None) for v in ("", "~", "null", "Null", "NULL")},
    **{v: ("float", math.nan) for v in (".nan", ".NaN", ".NAN")},
    **{v: ("float", math.inf) for v in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")},
    **{v: ("float", -math.inf) for v in ("-.inf", "-.Inf", "-.INF")},
    "<<": ("merge", None),
}
_TIMESTAMP = re.compile(r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]+)?"
                        r"(Z|[-+][0-9]{1,2}(:[0-9]{2})?)?)?$")
_INT64 = (-(2 ** 63), 2 ** 63 - 1)
_TAG = "tag:yaml.org,2002:"


def _go_parse_int(text: str) -> int | None:
    """Go's strconv.ParseInt(text, 0, 64) / ParseUint: sign, then 0x / 0o / 0b / legacy-0 octal or decimal."""
    sign, body = (-1, text[1:]) if text[:1] == "-" else (1, text[1:] if text[:1] == "+" else text)
    if not body:
        return None
    lower = body.lower()
    base, digits = 10, body
    if lower.startswith(("0x", "0o", "0b")):
        base, digits = {"x": 16, "o": 8, "b": 2}[lower[1]], body[2:]
    elif len(body) > 1 and body[0] == "0":
        base, digits = 8, body[1:]
    if not digits or not re.fullmatch(r"[0-9a-fA-F]+", digits):
        return None
    try:
        value = sign * int(digits, base)
    except ValueError:
        return None
    # ParseInt (int64), else ParseUint (uint64); beyond both, yaml.v3 tries a float
    return value if _INT64[0] <= value <= 2 ** 64 - 1 else None


def go_scalar(text: str) -> tuple[str, Any]:
    """(kind, value) yaml.v3 decodes an unquoted scalar to, decoding into `interface{}` (resolve.go)."""
    if text in _RESOLVE_MAP:
        return _RESOLVE_MAP[text]
    if text[:1] not in "0123456789+-.":
        return "str", text
    if _TIMESTAMP.match(text):
        return "str", text  # "for backward compatibility" yaml.v3 keeps timestamps as strings in interface{}
    plain = text.replace("_", "")
    number = _go_parse_int(plain)
    if number is not None:
        return "int", number
    if _YAML_STYLE_FLOAT.match(plain):
        return "float", float(plain)
    return "str", text


class _GoYamlLoader(yaml.SafeLoader):
    """PyYAML's SafeLoader resolving plain scalars as yaml.v3 does, refusing a key given twice."""

    yaml_implicit_resolvers: dict = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode and implicit[0]:
            return _TAG + go_scalar(value)[0]
        return super().resolve(kind, value, implicit)

    def construct_go_scalar(self, node: yaml.ScalarNode) -> Any:
        kind, value = go_scalar(self.construct_scalar(node))
        wanted = node.tag[len(_TAG):]
        if kind == wanted:
            return value
        if wanted == "str":
            return str(node.value)
        raise yaml.constructor.ConstructorError(None, None, f"cannot decode {node.value!r} as !!{wanted}",
                                                node.start_mark)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        self.flatten_mapping(node)
        seen: dict[Any, yaml.Mark] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:  # unhashable: SafeLoader reports it below
                continue
            if first is not None:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} is given twice in one mapping, at line {first.line + 1} and line "
                    f"{key_node.start_mark.line + 1}; keep one")
            seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)


for _kind in ("bool", "int", "float", "null"):
    _GoYamlLoader.add_constructor(_TAG + _kind, _GoYamlLoader.construct_go_scalar)
# an explicit !!timestamp, like an implicit one, stays the text as written
_GoYamlLoader.add_constructor(_TAG + "timestamp", lambda loader, node: str(node.value))


def _expanded_size(node: yaml.Node, limit: int) -> int:
    """How many values the node graph has once aliases are expanded (stops counting past `limit`).

    yaml.v3 refuses "excessive aliasing"; an alias bomb would otherwise explode into billions of values
    when the config is turned into JSON strings."""
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(n: yaml.Node) -> int:
        key = id(n)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise ValueError("an alias refers to the node that contains it (a recursive structure)")
        active.add(key)
        total = 1
        if isinstance(n, yaml.SequenceNode):
            for item in n.value:
                total += size(item)
                if total > limit:
                    break
        elif isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                total += size(k) + size(v)
                if total > limit:
                    break
        active.discard(key)
        sizes[key] = total
        return total

    return size(node)


def parse_stack_yaml(text: str, source: str = "stack file") -> Any:
    """Decode stack-file text as yaml.v3 would (see the module doc). Raises ConfigError."""
    loader = _GoYamlLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        try:
            size = _expanded_size(node, MAX_EXPANDED_VALUES)
        except ValueError as exc:
            raise ConfigError([Problem(source, f"cannot be read: {exc}")]) from None
        if size > MAX_EXPANDED_VALUES:
            raise ConfigError([Problem(source, f"expands to more than {MAX_EXPANDED_VALUES} values through "
                                       "aliases (excessive aliasing); write the values out")])
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise ConfigError([Problem(source, f"is not valid YAML: {_yaml_problem(exc)}")]) from None
    except RecursionError:
        raise ConfigError([Problem(source, "cannot be read: nested too deeply")]) from None
    finally:
        loader.dispose()


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """One line: what the parser found and where (PyYAML's own text spans lines and quotes the source)."""
    def where(text: object, mark: yaml.error.Mark | None) -> str:
        text = " ".join(str(text).split())
        return f"{text} at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else text

    problem = getattr(exc, "problem", None)
    if problem is None:
        return where(exc, None)
    found = where(problem, getattr(exc, "problem_mark", None))
    context = getattr(exc, "context", None)
    return f"{where(context, getattr(exc, 'context_mark', None))}: {found}" if context else found


def decode_text(data: bytes, source: str) -> str:
    """Bytes -> text as the CLI accepts them: UTF-8 (BOM dropped) or UTF-16 with a BOM."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise ConfigError([Problem(source, "is not valid UTF-16 text after its byte-order mark")]) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError([Problem(source, f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                                   f"{exc.start}); save it as UTF-8")]) from None


def read_stack_file(path: str | Path) -> dict[str, Any]:
    """The `config:` mapping of a Pulumi.<stack>.yaml file (or a bare mapping), decoded as the CLI decodes it.

    Faults (a directory, a missing or unreadable file, bad encoding, invalid YAML, an alias bomb) are
    ConfigErrors naming the file."""
    source = str(path)
    file = Path(path)
    if file.is_dir():
        raise ConfigError([Problem(source, "is a directory; give a stack config file (Pulumi.<stack>.yaml)")])
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise ConfigError([Problem(source, "does not exist")]) from None
    except OSError as exc:
        raise ConfigError([Problem(source, f"cannot be read: {exc.strerror or exc}")]) from None
    parsed = parse_stack_yaml(decode_text(data, source), source) or {}
    if not isinstance(parsed, dict):
        raise ConfigError([Problem(source, "must be a mapping with a 'config:' key")])
    config = parsed.get("config", parsed)
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise ConfigError([Problem(f"{source}: config", "must be a mapping of keys to values")])
    return {_go_key(k): v for k, v in config.items()}


# --- values -> the strings the CLI passes ---------------------------------------------------------


def _go_key(key: Any) -> str:
    """fmt.Sprintf("%v", key) for the scalar keys yaml.v3 produces."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "<nil>"
    if isinstance(key, float):
        return _go_float(key, json=False)
    return str(key)


def _go_float(value: float, json: bool = True) -> str:
    """Go's encoding/json float64 text (strconv 'f' or, for very large/small values, 'e' format)."""
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"json: unsupported value: {value}")
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        text = repr(value).replace("e-0", "e-").replace("e+0", "e+")
        return text
    text = format(Decimal(repr(value)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _go_string(value: str) -> str:
    """encoding/json string: HTML-sensitive characters and U+2028/2029 escaped, other non-ASCII kept."""
    import json

    text = json.dumps(value, ensure_ascii=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                          ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text


def go_json(value: Any) -> str:
    """Go encoding/json text of a decoded YAML value (maps with sorted keys, no spaces)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return _go_string(value)
    if isinstance(value, Mapping):
        items = sorted((_go_key(k), v) for k, v in value.items())
        return "{" + ",".join(f"{_go_string(k)}:{go_json(v)}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(go_json(v) for v in value) + "]"
    return _go_string(str(value))


def is_secure(value: Any) -> bool:
    """A `{secure: <ciphertext>}` value (object.go isSecureValue: exactly one key, a string)."""
    return isinstance(value, Mapping) and len(value) == 1 and isinstance(value.get("secure"), str)


def _decrypt_offline(value: Any) -> tuple[bool, Any]:
    if is_secure(value):
        return True, SECRET_PLACEHOLDER
    if isinstance(value, Mapping):
        found, out = False, {}
        for k, v in value.items():
            secret, out[k] = _decrypt_offline(v)
            found = found or secret
        return found, out
    if isinstance(value, list):
        results = [_decrypt_offline(v) for v in value]
        return any(s for s, _ in results), [v for _, v in results]
    return False, value


def cli_config(config: Mapping[str, Any], project: str) -> tuple[dict[str, str], list[str]]:
    """A stack file's decoded `config:` -> (the key -> string map the CLI passes the program, secret keys).

    Keys without a namespace get the project's; `secure:` values become SECRET_PLACEHOLDER (offline)."""
    flat: dict[str, str] = {}
    secret_keys: list[str] = []
    problems: list[Problem] = []
    for raw_key, raw_value in config.items():
        key = _go_key(raw_key)
        if ":" not in key:
            key = f"{project}:{key}"
        secret, value = _decrypt_offline(raw_value)
        if secret:
            secret_keys.append(key)
        try:
            if value is None:
                flat[key] = ""  # the CLI warns and passes an empty string
            elif isinstance(value, str):
                flat[key] = value
            else:
                flat[key] = go_json(value)
        except ValueError as exc:
            problems.append(Problem(key, f"cannot be passed to the program ({exc}); quote it if it is text"))
    if problems:
        raise ConfigError(problems)
    return flat, sorted(secret_keys)


__all__ = ["MAX_EXPANDED_VALUES", "SECRET_PLACEHOLDER", "cli_config", "decode_text", "go_json", "go_scalar",
           "is_secure", "parse_stack_yaml", "read_stack_file"]
