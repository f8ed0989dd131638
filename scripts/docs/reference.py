"""The configuration reference, generated from the option definitions, and the MkDocs hook
that puts it (and the changelog) into the site at build time.

One source for every option's name, default, environment variable and meaning: the dataclass
fields of ``Options`` and ``ServeSettings`` (``config.py``) and of each front's options
(``fronts/*/options.py``), with the ``#:`` comment above each field as its meaning. Nothing
here is written by hand but the section titles; ``tests/test_docs.py`` checks that every option
is listed.

``docs/configuration.md`` holds the prose; each ``<!-- options:NAME -->`` ... ``<!-- /options
-->`` block in it is replaced by the table NAME (``serve``, ``middleware``, ``anthropic``,
``responses``, ``gemini``, ``providers``).
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolcall_middleware.config import ENV_ALIASES, Options, ServeSettings
from toolcall_middleware.fronts.anthropic.options import AnthropicOptions
from toolcall_middleware.fronts.core.options import FrontOptions, env_prefix
from toolcall_middleware.fronts.gemini.options import GeminiOptions
from toolcall_middleware.fronts.responses.options import ResponsesOptions
from toolcall_middleware.parsers import providers

ROOT = Path(__file__).resolve().parents[2]
FRONTS: dict[str, type[FrontOptions]] = {
    "anthropic": AnthropicOptions,
    "responses": ResponsesOptions,
    "gemini": GeminiOptions,
}
#: Maps whose environment form may also be ``key=value`` pairs separated by commas.
PAIR_MAPS = {"provider_overrides", "model_map"}
BLOCK = re.compile(r"<!-- options:(\w+) -->.*?<!-- /options -->", re.S)


def field_comments(cls: type) -> dict[str, str]:
    """The ``#:`` comment lines above each field of ``cls``, joined, by field name."""
    source = Path(inspect.getfile(cls)).read_text().splitlines()
    tree = ast.parse("\n".join(source))
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
    comments = {}
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            lines = []
            at = item.lineno - 2
            while at >= 0 and source[at].strip().startswith("#:"):
                lines.insert(0, source[at].strip()[2:].strip())
                at -= 1
            if lines:
                comments[item.target.id] = " ".join(lines)
    return comments


#: Pointers into the code, which a comment may hold and the user's page leaves out.
CODE_POINTERS = re.compile(r"\s*\((?:see )?(?:``[\w.]+``|[A-Z]\w+)\)|\s*See ``[\w.]+``\.")


def rst_to_md(text: str) -> str:
    """A field comment as the page shows it: Markdown literals, no pointers into the code."""
    return CODE_POINTERS.sub("", text).replace("``", "`").replace(" -> ", " → ")


def default_of(field: dataclasses.Field[Any]) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return None


def shown_default(name: str, value: Any) -> str:
    if value is None:
        return "none" if name != "upstream" else "none: the bundled replay"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, tuple):
        return "`" + ",".join(value) + "`"
    if isinstance(value, Mapping):
        return "`{}`" if not value else f"`{dict(value)}`"
    if value == "" and name == "admin_key":
        return "empty (off)"
    return f"`{value}`"


def value_kind(cls: type, name: str, default: Any) -> str:
    """What the option takes, from its type: choices for a ``Literal``."""
    hint = typing.get_type_hints(cls)[name]
    choices = [a for a in _flatten(hint) if isinstance(a, (str, bool))]
    if choices and not isinstance(default, bool):
        return ", ".join(f"`{str(c).lower() if isinstance(c, bool) else c}`" for c in choices)
    if name == "provider":
        return "`auto`, " + ", ".join(f"`{p}`" for p in providers())
    if isinstance(default, bool):
        return "`true` or `false`"
    if isinstance(default, int):
        return "integer"
    if isinstance(default, float):
        return "seconds" if "timeout" in name or "interval" in name else "number"
    if isinstance(default, tuple):
        return "list (comma-separated in the environment)"
    if isinstance(default, Mapping):
        pairs = " or `name=value,…`" if name in PAIR_MAPS else ""
        return f"table (JSON object{pairs} in the environment)"
    return "string"


def _flatten(hint: Any) -> list[Any]:
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return list(typing.get_args(hint))
    if hint is bool:
        return [True, False]
    if origin in (typing.Union, getattr(types, "UnionType", None)):
        return [a for arg in typing.get_args(hint) for a in _flatten(arg)]
    return []


def serve_flags() -> dict[str, str]:
    """The command-line flags of ``toolcall serve``, by option name."""
    import argparse

    from toolcall_middleware.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    serve = commands.choices["serve"]
    return {
        a.dest: a.option_strings[0]
        for a in serve._actions
        if a.option_strings and a.dest not in ("help", "config")
    }


def rows(cls: type, env: str, flags: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    """One row per field of ``cls``: name, environment variable(s), flag, default, kind,
    meaning (the field's ``#:`` comment, else the shared one of ``FrontOptions``)."""
    comments = field_comments(FrontOptions) if issubclass(cls, FrontOptions) else {}
    comments.update(field_comments(cls))
    out = []
    for field in dataclasses.fields(cls):
        default = default_of(field)
        variables = [env + field.name.upper(), *ENV_ALIASES.get(field.name, ())]
        out.append(
            {
                "name": field.name,
                "env": ", ".join(f"`{v}`" for v in variables) if env.endswith("_") else "",
                "flag": f"`{flags[field.name]}`" if flags and field.name in flags else "",
                "default": shown_default(field.name, default),
                "kind": value_kind(cls, field.name, default),
                "meaning": rst_to_md(comments.get(field.name, "")),
            }
        )
    return out


def table(items: list[dict[str, str]], columns: list[tuple[str, str]]) -> str:
    head = "| " + " | ".join(title for _, title in columns) + " |"
    rule = "|" + "---|" * len(columns)
    body = [
        "| " + " | ".join(item[key].replace("|", "\\|") for key, _ in columns) + " |"
        for item in items
    ]
    return "\n".join([head, rule, *body])


def option_cell(item: dict[str, str]) -> dict[str, str]:
    """One cell for what names an option: its name, its variables, its flag, a line each."""
    names = [f"`{item['name']}`", *filter(None, [item["env"], item["flag"]])]
    return {**item, "option": "<br>".join(names).replace(", ", "<br>")}


def render(name: str) -> str:
    """The Markdown of block ``name``."""
    columns = [
        ("option", "option, variable, flag"),
        ("default", "default"),
        ("kind", "takes"),
        ("meaning", "meaning"),
    ]
    if name == "serve":
        items = rows(ServeSettings, "TOOLCALL_", serve_flags())
    elif name == "middleware":
        items = rows(Options, "TOOLCALL_")
    elif name in FRONTS:
        items = rows(FRONTS[name], env_prefix(name))
    elif name == "providers":
        return ", ".join(f"`{p}`" for p in ("auto", *providers()))
    else:
        raise KeyError(f"no options table {name!r}")
    return table([option_cell(item) for item in items], columns)


def fill(markdown: str) -> str:
    """``markdown`` with every options block replaced by its table."""
    return BLOCK.sub(
        lambda m: f"<!-- options:{m[1]} -->\n{render(m[1])}\n<!-- /options -->", markdown
    )


def every_option() -> dict[str, list[str]]:
    """Every option by table: what the generated page must list."""
    return {
        "serve": [f.name for f in dataclasses.fields(ServeSettings)],
        "middleware": [f.name for f in dataclasses.fields(Options)],
        **{front: list(cls.PARSERS) for front, cls in FRONTS.items()},
    }


# --- the MkDocs hook (mkdocs.yml: hooks) -------------------------------------------------------


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    return fill(markdown) if page.file.src_uri == "configuration.md" else markdown


def on_files(files: Any, config: Any, **kwargs: Any) -> Any:
    """The changelog page, from the repository's CHANGELOG.md (one copy)."""
    from mkdocs.structure.files import File

    changelog = (ROOT / "CHANGELOG.md").read_text()
    files.append(File.generated(config, "changelog.md", content=changelog))
    return files
