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

import hashlib
import hmac
import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import yaml

from ..errors import ConfigError, Problem

SECRET_PLACEHOLDER = "[offline-plan-secret]"
# No key of this program nests deeper than a handful of levels; a value nested deeper is refused at its key, with
# one message, whether it comes from the stack file (offline) or as the CLI's JSON string (`pulumi up`), before
# anything recursive (PyYAML's composer, json.loads) meets it.
MAX_VALUE_DEPTH = 32
NESTING_MESSAGE = (f"nests lists and objects more than {MAX_VALUE_DEPTH} levels deep; no key of this program "
                   "takes values nested that deep")


def json_nesting_exceeds(text: str, limit: int = MAX_VALUE_DEPTH) -> bool:
    """Whether JSON text nests arrays/objects more than `limit` deep (a scan, no recursion, no parse)."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


class NestedTooDeep(ConfigError):
    """A stack file value nested past MAX_VALUE_DEPTH; `top` and `key` say where (key: the config key, if any)."""

    def __init__(self, source: str, top: Optional[str], key: Optional[str]):
        self.top, self.key = top, key
        where = f"{source}: {key}" if key is not None else (f"{source}: {top}" if top is not None else source)
        super().__init__([Problem(_printable(where), NESTING_MESSAGE)])


def _too_deep(text: str) -> Optional[tuple[Optional[str], Optional[str]]]:
    """(top-level key, config key) of the first value nested past MAX_VALUE_DEPTH, from the parser's events (an
    iterative state machine: no recursion however deep), or None."""
    frames: list[list[Any]] = []  # [is_mapping, expecting_key, current_key]
    for event in yaml.parse(text, Loader=_GoYamlLoader):
        if isinstance(event, yaml.DocumentEndEvent):
            return None  # yaml.v3 Unmarshal reads the first document only
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            frames.pop()
            continue
        if not isinstance(event, yaml.NodeEvent):
            continue
        if frames and frames[-1][0]:
            frame = frames[-1]
            if frame[1]:
                frame[2] = event.value if isinstance(event, yaml.ScalarEvent) else None
            frame[1] = not frame[1]
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            frames.append([isinstance(event, yaml.MappingStartEvent), True, None])
            top = frames[0][2] if len(frames) > 1 else None
            key = frames[1][2] if top == "config" and len(frames) > 2 else None
            relative = len(frames) - (2 if key is not None else 1)
            if relative > MAX_VALUE_DEPTH:
                return top, key
    return None
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
        if wanted == "float" and kind == "int":  # resolve.go: an int asked for as !!float is that float
            return float(value)
        raise yaml.constructor.ConstructorError(None, None, f"cannot decode !!{kind} {node.value!r} as !!{wanted}",
                                                node.start_mark)

    def construct_other_tag(self, tag_suffix: str, node: yaml.Node) -> Any:
        """A tag yaml.v3 cannot resolve (`!foo`, `!!set`, `!!omap`): the value as if untagged (decode.go
        ignores it for collections; a scalar keeps its text)."""
        if isinstance(node, yaml.MappingNode):
            return self.construct_mapping(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            return self.construct_sequence(node, deep=True)
        return str(node.value)

    def construct_binary_text(self, node: yaml.ScalarNode) -> Any:
        """!!binary: the decoded bytes as a Go string (invalid UTF-8 becomes U+FFFD in encoding/json)."""
        return self.construct_yaml_binary(node).decode("utf-8", errors="replace")

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        """Merge keys (`<<`) as yaml.v3 v3.0.1 decode.go `mapping`/`merge` resolve them, not as PyYAML does: the
        mapping's own keys first (they always win), then each merged mapping in order, a key taken only if no
        earlier one set it, so in `<<: [*b, *a]` *b's keys win; a merged mapping's own merges follow its keys.
        A merge value that is not a mapping or a list of mappings is refused ("map merge requires map or
        sequence of maps as the value")."""
        node.value = self._v3_pairs(node, None, [])

    def _v3_key(self, key_node: yaml.Node) -> Any:
        key = self.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(None, None, "invalid map key (a mapping or list used as a "
                                                    "key)", key_node.start_mark) from None
        return (type(key).__name__, key)

    def _v3_pairs(self, node: yaml.MappingNode, taken: Optional[set], active: list[int]) -> list:
        if id(node) in active:
            raise yaml.constructor.ConstructorError(None, None, "a merge key refers to the mapping that contains "
                                                    "it (a recursive structure)", node.start_mark)
        active = [*active, id(node)]
        merge: Optional[yaml.Node] = None
        own = []
        for key_node, value_node in node.value:
            if _is_merge_key(key_node):
                merge = value_node  # two `<<` keys are refused earlier (_duplicate_keys)
            else:
                own.append((key_node, value_node))
        if taken is None:  # the mapping being decoded: its own keys all count
            out = own
            if merge is not None:
                taken = {self._v3_key(k) for k, _ in node.value}
                out = out + self._v3_merged(merge, taken, active)
            return out
        out = []
        for key_node, value_node in own:
            key = self._v3_key(key_node)
            if key not in taken:
                taken.add(key)
                out.append((key_node, value_node))
        if merge is not None:
            out.extend(self._v3_merged(merge, taken, active))
        return out

    def _v3_merged(self, merge: yaml.Node, taken: set, active: list[int]) -> list:
        items = merge.value if isinstance(merge, yaml.SequenceNode) else [merge]
        out = []
        for item in items:
            if not isinstance(item, yaml.MappingNode):
                raise yaml.constructor.ConstructorError(None, None, "map merge requires map or sequence of maps as "
                                                        "the value (yaml.v3)", merge.start_mark)
            out.extend(self._v3_pairs(item, taken, active))
        return out

    def process_directives(self) -> Any:
        """yaml.v3 parserc.go reads only `%YAML 1.1` documents ("found incompatible YAML document")."""
        handles = super().process_directives()
        if self.yaml_version is not None and tuple(self.yaml_version) != (1, 1):
            raise yaml.parser.ParserError(None, None, f"found incompatible YAML document (%YAML "
                                          f"{'.'.join(map(str, self.yaml_version))}; the Pulumi CLI's YAML "
                                          "reader accepts only %YAML 1.1 or no directive)", self.peek_token().start_mark)
        return handles


def _is_merge_key(node: yaml.Node) -> bool:
    """yaml.v3 `isMerge`: a plain `<<` (or one tagged !!merge); a quoted "<<" is text."""
    return isinstance(node, yaml.ScalarNode) and node.value == "<<" and node.tag == _TAG + "merge"


for _kind in ("bool", "int", "float", "null"):
    _GoYamlLoader.add_constructor(_TAG + _kind, _GoYamlLoader.construct_go_scalar)
_GoYamlLoader.add_constructor(_TAG + "binary", _GoYamlLoader.construct_binary_text)
_GoYamlLoader.add_multi_constructor("", _GoYamlLoader.construct_other_tag)
_SCALAR_TAGS = {_TAG + kind for kind in ("str", "bool", "int", "float", "null", "timestamp", "binary", "merge")}


def _go_tags(node: yaml.Node) -> None:
    """Tags as yaml.v3 decodes them into interface{} (decode.go `unmarshal`: a mapping or sequence is decoded by its
    kind whatever its tag, `!!str {a: 1}` and `!!set` included; resolve.go: a scalar under a tag it cannot resolve,
    `!foo x` or `!!map x`, is its text)."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, yaml.MappingNode):
            current.tag = _TAG + "map"
            for key_node, value_node in current.value:
                stack.extend((key_node, value_node))
        elif isinstance(current, yaml.SequenceNode):
            current.tag = _TAG + "seq"
            stack.extend(current.value)
        elif current.tag not in _SCALAR_TAGS:
            current.tag = _TAG + "str"
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


def _duplicate_keys(node: yaml.Node, source: str) -> None:
    """yaml.v3 decode.go `mapping`: a key whose kind and text repeat in one mapping is an error (merged keys
    are not compared: an explicit key next to a `<<` merge overrides the merged one)."""
    seen_nodes: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen_nodes:
            continue
        seen_nodes.add(id(current))
        if isinstance(current, yaml.MappingNode):
            first: dict[tuple[str, str], yaml.Node] = {}
            for key_node, value_node in current.value:
                text = key_node.value if isinstance(key_node, yaml.ScalarNode) else ""
                mark = (type(key_node).__name__, text)
                if mark in first:
                    raise ConfigError([Problem(source, f"is not valid YAML: key {_printable(text)!r} is given twice "
                                               f"in one mapping, at line {first[mark].start_mark.line + 1} and line "
                                               f"{key_node.start_mark.line + 1}; keep one")])
                first[mark] = key_node
                stack.extend((key_node, value_node))
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


def parse_stack_yaml(text: str, source: str = "stack file") -> Any:
    """Decode stack-file text as yaml.v3's Unmarshal would (see the module doc). Raises ConfigError.

    Only the first document is read (yaml.v3 `unmarshal` parses one document and ignores the rest)."""
    try:
        loader = _GoYamlLoader(text)
    except yaml.YAMLError as exc:  # the reader refuses a control character (NUL, ESC, ...) before parsing
        raise ConfigError([Problem(source, f"is not valid YAML: {_yaml_problem(exc)}; control characters are not "
                                   "allowed in a stack file (write them as escapes in a double-quoted string)")]) from None
    try:
        deep = _too_deep(text)
    except yaml.YAMLError:
        deep = None  # the loader below reports the syntax error with its position
    if deep is not None:
        loader.dispose()
        raise NestedTooDeep(source, *deep)
    try:
        node = loader.get_node() if loader.check_node() else None
        if node is None:
            return None
        _duplicate_keys(node, source)
        _go_tags(node)
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


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _printable(text: str) -> str:
    """Text with control characters (a terminal colour code, NUL) written as escapes, never raw."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


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


# What a pipe held (`--config <(sops -d Pulumi.prod.yaml)`: /dev/fd/N, a FIFO), by the pipe's identity: a pipe
# can be read once, and the plan, its policy step and `diff` each read the stack file.
_PIPE_CONTENTS: dict[tuple[str, int, int], bytes] = {}


def _read_once(file: Path) -> bytes:
    if file.is_file():
        return file.read_bytes()
    status = file.stat()  # FileNotFoundError for a missing file, as read_bytes would raise
    key = (str(file), status.st_dev, status.st_ino)
    if key not in _PIPE_CONTENTS:
        _PIPE_CONTENTS[key] = file.read_bytes()
    return _PIPE_CONTENTS[key]


def read_stack_document(path: str | Path) -> dict[str, Any]:
    """The whole top-level mapping of a stack file (`config:`, `environment:`, ...), decoded as the CLI decodes it.

    Faults (a directory, a missing or unreadable file, bad encoding, invalid YAML, an alias bomb) are
    ConfigErrors naming the file."""
    source = str(path)
    file = Path(path)
    if file.is_dir():
        raise ConfigError([Problem(source, "is a directory; give a stack config file (Pulumi.<stack>.yaml)")])
    try:
        data = _read_once(file)
    except FileNotFoundError:
        raise ConfigError([Problem(source, "does not exist")]) from None
    except OSError as exc:
        raise ConfigError([Problem(source, f"cannot be read: {exc.strerror or exc}")]) from None
    parsed = parse_stack_yaml(decode_text(data, source), source)
    if parsed is None:
        return {}  # an empty stack file: no config (loaders.go)
    if not isinstance(parsed, dict):
        raise ConfigError([Problem(source, "must be a mapping with a 'config:' key (the CLI: expected the stack to "
                                   f"be an object, was {_go_type(parsed)})")])
    return parsed


def read_stack_file(path: str | Path) -> dict[str, Any]:
    """The `config:` mapping of a Pulumi.<stack>.yaml file, decoded as the CLI decodes it.

    A file without `config:` has no config (the CLI reads only that key); a file whose config comes from an
    ESC `environment:` is refused here (`read_stack_config` reads it with an exported environment)."""
    document = read_stack_document(path)
    _refuse_environment(document, str(path), None)
    return _config_block(document, str(path))


def _config_block(document: Mapping[str, Any], source: str) -> dict[str, Any]:
    config = document.get("config")
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise ConfigError([Problem(f"{source}: config", "must be a mapping of keys to values")])
    return {_go_key(k) if not isinstance(k, str) else k: v for k, v in config.items()}


def _go_type(value: Any) -> str:
    return {bool: "bool", int: "int", float: "float64", str: "string", list: "[]interface {}"}.get(type(value), "object")


def _refuse_environment(document: Mapping[str, Any], source: str, esc: Optional[Path]) -> None:
    environment = document.get("environment")
    if environment in (None, [], {}) or esc is not None:
        return
    raise ConfigError([Problem(f"{source}: environment", "imports Pulumi ESC environments, which `pulumi up` "
                               "merges into the config but an offline plan cannot open (no credentials); export the "
                               "environment (`esc env open ORG/PROJECT/ENV > env.json`, or `pulumi env open ...`) and "
                               "pass it: `pathways-gke plan --stack STACK --esc-env env.json`, or copy its pulumiConfig "
                               "values into the stack file")])


# --- the key forms the CLI accepts (config.ParseKey) and the namespace it adds ----------------------------


def parse_config_key(key: str) -> Optional[str]:
    """pulumi sdk/go/common/resource/config/key.go ParseKey: `ns:name`, or the legacy `ns:config:name` -> `ns:name`;
    anything else (`gcp:foo:bar`, three or more colons) is refused: None."""
    count = key.count(":")
    if count == 1:
        return key
    if count == 2:
        namespace, module, name = key.split(":")
        if module == "config":
            return f"{namespace}:{name}"
    return None


def namespaced_config(config: Mapping[str, Any], project: str, source: str = "stack file") -> dict[str, Any]:
    """A stack file's decoded `config:` with every key as the CLI keys it (loaders.go
    stackConfigNamespacedWithProject, then config.Map UnmarshalYAML / ParseKey).

    Refused as the CLI refuses them: a key ParseKey cannot parse; and, because the CLI then keeps one of them at
    random (Go map order), two spellings of one key (`cpuPool` and `pathways-gke:cpuPool`, or
    `pathways-gke:config:cpuPool`)."""
    problems: list[Problem] = []
    out: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    # a non-text key anywhere in the block stops the CLI from adding the project namespace to any key
    namespacing = all(isinstance(k, str) for k in config)
    for raw_key, value in config.items():
        key = raw_key if isinstance(raw_key, str) else _go_key(raw_key)
        full = key if ":" in key or not namespacing else f"{project}:{key}"
        parsed = parse_config_key(full)
        if parsed is None:
            problems.append(Problem(f"{source}: {_printable(key)}", "is not a configuration key the Pulumi CLI accepts "
                                    "(`<namespace>:<name>`, or the legacy `<namespace>:config:<name>`; a namespace "
                                    "and a name contain no ':'); the CLI refuses the whole stack file"))
            continue
        if parsed in spelled:
            problems.append(Problem(f"{source}: {_printable(key)}", f"is the same config key as "
                                    f"'{_printable(spelled[parsed])}' ({parsed}); the Pulumi CLI keeps one of the two "
                                    "at random: keep one"))
            continue
        spelled[parsed] = key
        out[parsed] = value
    if problems:
        raise ConfigError(problems)
    return out


def secure_paths(config: Mapping[str, Any]) -> dict[str, list[str]]:
    """Where each key holds `secure:` values, as config paths under the key's name (`workloads[0].env.TOKEN`)."""
    def walk(value: Any, path: str, out: list[str]) -> None:
        if is_secure(value):
            out.append(path)
        elif isinstance(value, Mapping):
            for k, v in value.items():
                walk(v, f"{path}.{_go_key(k)}", out)
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{path}[{i}]", out)

    found: dict[str, list[str]] = {}
    for key, value in config.items():
        paths: list[str] = []
        walk(value, str(key).partition(":")[2] or str(key), paths)
        if paths:
            found[str(key)] = paths
    return found


# --- Pulumi.yaml: the project's name, stackConfigDir and `config:` block (pkg/workspace/config.go mergeConfig) ---


_PROJECT_CONFIG_ATTRIBUTES = ("type", "description", "items", "default", "value", "secret")
_CONFIG_TYPES = ("string", "integer", "boolean", "array", "object")


def read_project(project_dir: str | Path) -> dict[str, Any]:
    """Pulumi.yaml (or Pulumi.yml) of a project directory, decoded as the CLI decodes it ({} when absent)."""
    for name in ("Pulumi.yaml", "Pulumi.yml"):
        path = Path(project_dir) / name
        if path.is_file():
            document = read_stack_document(path)
            return document
    return {}


def _project_config(project: Mapping[str, Any], source: str) -> dict[str, dict[str, Any]]:
    """The project's `config:` entries as typed definitions (project.go RewriteShorthandConfigValues, Validate)."""
    name = str(project.get("name") or "")
    block = project.get("config") or {}
    if not isinstance(block, Mapping):
        raise ConfigError([Problem(f"{source}: config", "must be a mapping of config keys to values or definitions")])
    problems: list[Problem] = []
    out: dict[str, dict[str, Any]] = {}
    for raw_key, entry in block.items():
        key = raw_key if isinstance(raw_key, str) else _go_key(raw_key)
        at = f"{source}: config.{_printable(key)}"
        ours = ":" not in key or key.startswith(f"{name}:")
        if not isinstance(entry, Mapping):  # shorthand: a default of ours, a value of another namespace
            entry = {"default" if ours else "value": entry}
        unknown = [str(k) for k in entry if k not in _PROJECT_CONFIG_ATTRIBUTES]
        if unknown:
            problems.append(Problem(at, f"has {', '.join(map(repr, unknown))}: a project config entry is a plain value "
                                    f"or a definition ({', '.join(_PROJECT_CONFIG_ATTRIBUTES)}); an object value goes "
                                    "under `default:` (or `value:` for another namespace)"))
            continue
        if "default" in entry and "value" in entry and entry["default"] is not None and entry["value"] is not None:
            problems.append(Problem(at, "cannot have both a 'default' and 'value' attribute"))
            continue
        kind = entry.get("type")
        if kind is not None and kind not in _CONFIG_TYPES:
            problems.append(Problem(at, f"type must be one of {', '.join(_CONFIG_TYPES)}", kind))
            continue
        if not ours:
            if kind is not None:
                problems.append(Problem(at, "is not namespaced by the project and should not define a type"))
                continue
            if entry.get("default") is not None:
                problems.append(Problem(at, "is not namespaced by the project and cannot define a default value; "
                                        "use the 'value' attribute"))
                continue
            if entry.get("value") is None:
                problems.append(Problem(at, "is namespaced and must provide an attribute 'value'"))
                continue
        elif kind == "array" and entry.get("items") is None:
            problems.append(Problem(at, "declares an array but does not specify the underlying type via 'items'"))
            continue
        elif kind is not None and entry.get("default") is not None and not _of_type(kind, entry["default"]):
            problems.append(Problem(at, f"has a default value that is not of the expected type '{kind}'"))
            continue
        full = key if ":" in key else f"{name}:{key}"
        parsed = parse_config_key(full)
        if parsed is None:
            problems.append(Problem(at, "is not a configuration key the Pulumi CLI accepts (`<namespace>:<name>`)"))
            continue
        out[parsed] = dict(entry)
    if problems:
        raise ConfigError(problems)
    return out


def _of_type(kind: str, value: Any) -> bool:
    """project.go ValidateConfigValue (items of an array are not checked here)."""
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        if isinstance(value, bool):
            return False
        if isinstance(value, int) or (isinstance(value, float) and value == int(value)):
            return True
        return isinstance(value, str) and re.fullmatch(r"[+-]?[0-9]+", value) is not None
    if kind == "boolean":
        return isinstance(value, bool) or value in ("true", "false")
    if kind == "object":
        return isinstance(value, Mapping)
    return isinstance(value, list)


def _merge_patch(stack_value: Any, base: Any) -> Any:
    """config/object.go Merge: JSON merge patch of the stack value onto the environment's, stack values winning."""
    if isinstance(stack_value, Mapping) and isinstance(base, Mapping) and not is_secure(stack_value):
        merged = dict(base)
        for k, v in stack_value.items():
            merged[k] = _merge_patch(v, merged.get(k))
        return merged
    return stack_value


def read_esc_export(path: str | Path) -> dict[str, Any]:
    """`pulumiConfig` of an exported environment (`esc env open ORG/PROJECT/ENV` prints its values as JSON)."""
    import json

    source = str(path)
    try:
        data = json.loads(decode_text(Path(path).read_bytes(), source))
    except FileNotFoundError:
        raise ConfigError([Problem(source, "does not exist")]) from None
    except OSError as exc:
        raise ConfigError([Problem(source, f"cannot be read: {exc.strerror or exc}")]) from None
    except ValueError as exc:
        raise ConfigError([Problem(source, "is not the JSON `esc env open` prints "
                                   f"({str(exc).split(':')[0]}); export it with `esc env open ORG/PROJECT/ENV > FILE`")]) from None
    if not isinstance(data, dict):
        raise ConfigError([Problem(source, "must be the JSON object `esc env open` prints")])
    config = data.get("pulumiConfig", {})
    if not isinstance(config, dict):
        raise ConfigError([Problem(f"{source}: pulumiConfig", "must be an object of config keys to values")])
    return config


# the top-level keys of a stack file the CLI reads (workspace.ProjectStack)
_STACK_FILE_KEYS = ("config", "environment", "secretsprovider", "encryptedkey", "encryptionsalt")


def _refuse_stray_config(document: Mapping[str, Any], source: str, known_keys: Sequence[str]) -> None:
    """Config keys written at the top level, outside `config:`: the CLI reads only `config:` and drops them."""
    stray = [str(k) for k in document if k not in _STACK_FILE_KEYS and (":" in str(k) or str(k) in known_keys)]
    if stray:
        raise ConfigError([Problem(f"{source}: {_printable(key)}", "is at the top level of the stack file, outside "
                                   "`config:`; the Pulumi CLI reads only the keys under `config:` and ignores it: "
                                   "indent it under a `config:` line") for key in stray])


def read_stack_config(path: str | Path, project_dir: str | Path | None = None, *, stack: Optional[str] = None,
                      esc: str | Path | None = None, known_keys: Sequence[str] = ()) -> tuple[dict[str, Any], str]:
    """The config `pulumi up` gives the program for this stack file (decoded values, keys namespaced), and the
    project name: the stack file's `config:`, then an ESC environment's `pulumiConfig` under it (stack values win,
    merged as JSON merge patch), then the project's values and defaults from Pulumi.yaml for keys the stack does
    not set (pkg/workspace/config.go mergeConfig). The CLI's refusals are ConfigErrors with its reason."""
    source = str(path)
    project_doc = read_project(project_dir) if project_dir is not None else {}
    project = str(project_doc.get("name") or "pathways-gke")
    try:
        document = read_stack_document(path)
    except NestedTooDeep as deep:
        if deep.top != "config" or deep.key is None:
            raise
        try:  # the key as the program sees it (namespaced), so `pulumi up` and the plan name it alike
            key = next(iter(namespaced_config({deep.key: None}, project, source)))
        except ConfigError:
            key = deep.key
        raise ConfigError([Problem(_printable(key), NESTING_MESSAGE)]) from None
    _refuse_environment(document, source, Path(esc) if esc is not None else None)
    _refuse_stray_config(document, source, known_keys)
    config = namespaced_config(_config_block(document, source), project, source)
    if esc is not None:
        for key, value in namespaced_config(read_esc_export(esc), project, str(esc)).items():
            config[key] = _merge_patch(config[key], value) if key in config else value
    definitions = _project_config(project_doc, str(Path(project_dir or ".") / "Pulumi.yaml")) if project_doc else {}
    problems: list[Problem] = []
    stack_name = stack or Path(path).name.removeprefix("Pulumi.").removesuffix(".yaml")
    missing: list[str] = []
    for key in sorted(definitions):
        entry = definitions[key]
        if key not in config:
            value = entry.get("default") if entry.get("default") is not None else entry.get("value")
            if value is None:
                if key.partition(":")[0] == project:
                    missing.append(key.partition(":")[2] if key.startswith(f"{project}:") else key)
                continue
            config[key] = value
            continue
        given = config[key]
        if entry.get("secret") and not is_secure(given) and not _holds_secure(given):
            problems.append(Problem(key, f"must be encrypted as it's secret (Pulumi.yaml declares it `secret: true`); "
                                    f"set it with `pulumi config set --secret {key} VALUE` (value not shown)"))
        elif entry.get("type") is not None and not _holds_secure(given) and not _of_type(entry["type"], given):
            problems.append(Problem(key, f"must be of type '{entry['type']}' (Pulumi.yaml declares it)"))
    if missing:
        problems.append(Problem(source, f"Stack '{stack_name}' is missing configuration "
                                f"value{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} that "
                                "Pulumi.yaml declares without a default; set them with `pulumi config set`"))
    if problems:
        raise ConfigError(problems)
    return config, project


def _holds_secure(value: Any) -> bool:
    return bool(secure_paths({"k": value}))


# --- values -> the strings the CLI passes ---------------------------------------------------------


def _go_key(key: Any) -> str:
    """fmt.Sprintf("%v", key) for the scalar keys yaml.v3 produces."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "<nil>"
    if isinstance(key, float):
        return _go_float_v(key)
    return str(key)


def _go_float_v(value: float) -> str:
    """fmt.Sprintf("%v", float64): strconv 'g' with the shortest digits, an exponent (two digits at least) when
    the decimal exponent is below -4 or at least 6 (strconv/ftoa.go: "use precision 6 for this decision")."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    digits, exponent = _shortest_digits(abs(value))
    if exponent < -4 or exponent >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    text = format(Decimal(f"{digits[0]}.{digits[1:] or '0'}e{exponent}"), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return sign + text


def _shortest_digits(value: float) -> tuple[str, int]:
    """The shortest decimal digits that read back as `value` (Python's repr, as Go's strconv) and the exponent."""
    text = repr(value)
    if "e" in text:
        mantissa, _, exp = text.partition("e")
        digits = mantissa.replace(".", "").lstrip("0")
        return digits.rstrip("0") or "0", int(exp)
    whole, _, frac = text.partition(".")
    if whole.strip("0"):
        digits = (whole.lstrip("0") + frac).rstrip("0")
        return digits or "0", len(whole.lstrip("0")) - 1
    stripped = frac.lstrip("0")
    return stripped.rstrip("0"), -(len(frac) - len(stripped)) - 1


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


SECRET_DIGEST = re.compile(re.escape(SECRET_PLACEHOLDER) + r"([0-9a-f]{12})")


def secret_digest(ciphertext: str, salt: str) -> str:
    """What an offline plan shows of a `secure:` value so that a changed one is seen changed: an HMAC-SHA256 of its
    *ciphertext* (the plaintext is never available offline) keyed by the stack's salt, 12 hex digits. Never the value,
    never an unsalted hash."""
    return hmac.new(f"pathways-gke/secret-digest/v1/{salt}".encode(), ciphertext.encode(), hashlib.sha256).hexdigest()[:12]


def stack_salt(document: Mapping[str, Any]) -> str:
    """The salt of a stack's secret digests: its `encryptionsalt` (passphrase secrets provider) or `encryptedkey`
    (a cloud KMS provider), the same in every version of the stack file; '' when it has neither."""
    for key in ("encryptionsalt", "encryptedkey"):
        value = document.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _decrypt_offline(value: Any, salt: str = "") -> tuple[bool, Any]:
    if is_secure(value):
        return True, SECRET_PLACEHOLDER + secret_digest(value["secure"], salt)
    if isinstance(value, Mapping):
        found, out = False, {}
        for k, v in value.items():
            secret, out[k] = _decrypt_offline(v, salt)
            found = found or secret
        return found, out
    if isinstance(value, list):
        results = [_decrypt_offline(v, salt) for v in value]
        return any(s for s, _ in results), [v for _, v in results]
    return False, value


def cli_config(config: Mapping[str, Any], project: str, salt: str = "") -> tuple[dict[str, str], list[str]]:
    """A stack file's decoded `config:` -> (the key -> string map the CLI passes the program, secret keys).

    Keys as the CLI keys them (`namespaced_config`); `secure:` values become SECRET_PLACEHOLDER followed by their
    salted ciphertext digest (`secret_digest`; offline)."""
    flat: dict[str, str] = {}
    secret_keys: list[str] = []
    problems: list[Problem] = []
    for key, raw_value in namespaced_config(config, project).items():
        secret, value = _decrypt_offline(raw_value, salt)
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


__all__ = ["MAX_EXPANDED_VALUES", "SECRET_DIGEST", "SECRET_PLACEHOLDER", "secret_digest", "stack_salt", "cli_config", "decode_text", "go_json", "go_scalar",
           "is_secure", "namespaced_config", "parse_config_key", "parse_stack_yaml", "read_esc_export", "read_project",
           "read_stack_config", "read_stack_document", "read_stack_file", "secure_paths"]
