"""Call formats described as data: the literal pieces a family writes around a call's name and arguments.

Most native formats that are not a JSON object per call share one of two shapes::

    [section_open] call (call_sep call)* [section_close]
    call = call_open NAME name_end ARGUMENTS call_close

where ARGUMENTS is either one JSON object (DeepSeek, Kimi K2, Mistral's ``[ARGS]``, Functionary v3.1, Solar Open,
and the JSON call objects between markers of Nemotron Nano 2, Apriel, MiniMax M1, FireFunction, Granite 3.3,
GigaChat 3 and 3.1, Apertus and Command R+, whose ``{"name": "`` is a piece like any other) or a
run of ``arg_open KEY arg_mid VALUE arg_close`` pairs (Qwen3-Coder, Seed-OSS, GLM, MiniMax M2, DeepSeek's DSML,
Hunyuan, MiniCPM), whose string values are written raw and other values as JSON. One
:class:`CallSyntax` per family holds the pieces exactly as the family's template writes them (the tests render
each published template and compare), and this module keeps the table of families and how a template's source
picks one. From a family's pieces come its generation grammar (:func:`.syntax_grammar.syntax_lark`), its
streaming reader (:class:`.syntax_reader.SyntaxReader`) and an example call for a prompt (:meth:`CallSyntax.write`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

PLACEHOLDER = re.compile(r"\{(index|id|id10)\}")
"""What stands in ``call_open`` or ``name_end`` for a call's 0-based position in the reply (``{index}``: Kimi K2's
``functions.name:0``) or for its id (``{id}``: Mistral's ``[CALL_ID]``, nine letters and digits; ``{id10}``: Solar
Open's, ten lowercase letters and digits)."""


def _fill(piece: str, index: int) -> str:
    return piece.replace("{index}", str(index)).replace("{id}", f"{index:09d}").replace("{id10}", f"{index:010d}")


@dataclass(frozen=True)
class CallSyntax:
    family: str
    call_open: str
    name_end: str
    call_close: str
    section_open: str = ""
    section_close: str = ""
    call_sep: str = ""
    xml: bool = False
    """Arguments as key/value pairs; else one JSON object."""
    arg_open: str = ""
    arg_mid: str = ""
    """Between a key and a string value (and every value, unless ``arg_mid_json`` is set)."""
    arg_close: str = ""
    arg_mid_json: str = ""
    """Between a key and a value written as JSON, where the family marks the two apart (DSML's
    ``string="false"``)."""
    trigger_text: str = ""
    """What starts the calls, where it is more than the opening's first line (GigaChat 3's opening begins with
    the end of the message before it)."""
    one_call: bool = False
    """A reply holds one call, parallel calls or not (GigaChat 3's template writes one call a turn)."""

    @property
    def trigger(self) -> str:
        """What starts the calls: the grammar of ``auto`` engages from here."""
        if self.trigger_text:
            return self.trigger_text
        return PLACEHOLDER.split((self.section_open or self.call_open).strip().split("\n")[0])[0]

    @property
    def section_rest(self) -> str:
        """What the section's opening holds after its trigger (Command R+'s ```` ```json⏎[ ```` after
        ``Action:``)."""
        return self.section_open.strip()[len(self.trigger):] if self.section_open else ""

    def markers(self) -> tuple[str, ...]:
        """The pieces' special-token-like parts (``<tool_call>``, ``<｜tool▁sep｜>``, ``[ARGS]``): a vocabulary
        may hold them as control tokens, which the reply must then write out."""
        found: list[str] = []
        for piece in (self.section_open, self.section_close, self.call_open, self.name_end, self.call_close,
                      self.arg_open, self.arg_mid, self.arg_mid_json, self.arg_close):
            for part in piece_parts(piece):
                if SPECIAL_PART.fullmatch(part) and part not in found:
                    found.append(part)
        return tuple(found)

    def write(self, calls: list[tuple[str, Mapping[str, Any]]]) -> str:
        """Calls as this family writes them (JSON in the compact layout)."""
        out = []
        for index, (name, arguments) in enumerate(calls):
            if self.xml:
                body = "".join(self._write_argument(key, value) for key, value in arguments.items())
            else:
                body = json.dumps(dict(arguments), ensure_ascii=False)
            out.append(_fill(self.call_open, index) + name + _fill(self.name_end, index) + body + self.call_close)
        return self.section_open + self.call_sep.join(out) + self.section_close

    def _write_argument(self, key: str, value: Any) -> str:
        if isinstance(value, str):
            return self.arg_open + key + self.arg_mid + value + self.arg_close
        return self.arg_open + key + (self.arg_mid_json or self.arg_mid) + json.dumps(value, ensure_ascii=False) \
            + self.arg_close


SPECIAL_PART = re.compile(r"<[^<>\s]+>|\[[A-Z_]+\]")
_PARTS = re.compile(r"(<[^<>\s]+>|\[[A-Z_]+\]|\s+)")


def piece_parts(piece: str) -> list[str]:
    """A piece cut into its special parts, its runs of whitespace and the text between them."""
    return [part for part in _PARTS.split(piece) if part]


def is_plain_string(prop: Mapping[str, Any]) -> bool:
    """A value the family writes raw: a string-typed property (an enum of strings included)."""
    if "$ref" in prop:
        return False
    if prop.get("type") == "string":
        return True
    values = prop.get("enum")
    return isinstance(values, list) and bool(values) and all(isinstance(v, str) for v in values)


# ---- the families ---------------------------------------------------------------------------------------------

_QWEN3_CODER = CallSyntax(
    "qwen3_coder", call_open="<tool_call>\n<function=", name_end=">\n", call_close="</function>\n</tool_call>",
    call_sep="\n", xml=True, arg_open="<parameter=", arg_mid=">\n", arg_close="\n</parameter>\n")
_SEED_OSS = CallSyntax(
    "seed_oss", call_open="<seed:tool_call>\n<function=", name_end=">\n",
    call_close="</function>\n</seed:tool_call>", call_sep="\n", xml=True, arg_open="<parameter=", arg_mid=">",
    arg_close="</parameter>\n")
_GLM = CallSyntax(
    "glm", call_open="<tool_call>", name_end="\n", call_close="</tool_call>", call_sep="\n", xml=True,
    arg_open="<arg_key>", arg_mid="</arg_key>\n<arg_value>", arg_close="</arg_value>\n")
_GLM_COMPACT = CallSyntax(
    "glm_compact", call_open="<tool_call>", name_end="", call_close="</tool_call>", xml=True,
    arg_open="<arg_key>", arg_mid="</arg_key><arg_value>", arg_close="</arg_value>")
_MINIMAX_M2 = CallSyntax(
    "minimax_m2", section_open="<minimax:tool_call>\n", section_close="</minimax:tool_call>",
    call_open='<invoke name="', name_end='">\n', call_close="</invoke>\n", xml=True,
    arg_open='<parameter name="', arg_mid='">', arg_close="</parameter>\n")
_DSML_FUNCTIONS = CallSyntax(
    "dsml", section_open="<｜DSML｜function_calls>\n", section_close="</｜DSML｜function_calls>",
    call_open='<｜DSML｜invoke name="', name_end='">\n', call_close="</｜DSML｜invoke>\n", xml=True,
    arg_open='<｜DSML｜parameter name="', arg_mid='" string="true">', arg_mid_json='" string="false">',
    arg_close="</｜DSML｜parameter>\n")
_DSML_TOOLS = replace(_DSML_FUNCTIONS, family="dsml_tools", section_open="<｜DSML｜tool_calls>\n",
                      section_close="</｜DSML｜tool_calls>")
_HUNYUAN = CallSyntax(
    "hunyuan", section_open="<tool_calls:opensource>\n", section_close="</tool_calls:opensource>",
    call_open="<tool_call:opensource>", name_end="<tool_sep:opensource>\n", call_close="</tool_call:opensource>\n",
    xml=True, arg_open="<arg_key:opensource>", arg_mid="</arg_key:opensource>\n<arg_value:opensource>",
    arg_close="</arg_value:opensource>\n")
_MINICPM = CallSyntax(
    "minicpm", call_open='<function name="', name_end='">', call_close="</function>", xml=True,
    arg_open='<param name="', arg_mid='">', arg_close="</param>")
_KIMI_K2 = CallSyntax(
    "kimi_k2", section_open="<|tool_calls_section_begin|>", section_close="<|tool_calls_section_end|>",
    call_open="<|tool_call_begin|>functions.", name_end=":{index}<|tool_call_argument_begin|>",
    call_close="<|tool_call_end|>")
_DEEPSEEK_R1 = CallSyntax(
    "deepseek_r1", section_open="<｜tool▁calls▁begin｜>", section_close="<｜tool▁calls▁end｜>",
    call_open="<｜tool▁call▁begin｜>function<｜tool▁sep｜>", name_end="\n```json\n",
    call_close="\n```<｜tool▁call▁end｜>", call_sep="\n")
_DEEPSEEK_V3 = CallSyntax(
    "deepseek_v3", section_open="<｜tool▁calls▁begin｜>", section_close="<｜tool▁calls▁end｜>",
    call_open="<｜tool▁call▁begin｜>", name_end="<｜tool▁sep｜>", call_close="<｜tool▁call▁end｜>")
_MISTRAL_ARGS = CallSyntax("mistral_args", call_open="[TOOL_CALLS]", name_end="[ARGS]", call_close="")
_MISTRAL_CALL_ID = CallSyntax("mistral_call_id", call_open="[TOOL_CALLS]", name_end="[CALL_ID]{id}[ARGS]",
                              call_close="")
_FUNCTIONARY = CallSyntax("functionary_v3_1", call_open="<function=", name_end=">", call_close="</function>")

# JSON call objects between markers: the object's opening, its name and its arguments key are pieces too.
_NEMOTRON_V2 = CallSyntax("nemotron_v2", section_open="<TOOLCALL>[", section_close="]</TOOLCALL>", call_sep=", ",
                          call_open='{"name": "', name_end='", "arguments": ', call_close="}")
_APRIEL = replace(_NEMOTRON_V2, family="apriel", section_open="<tool_calls>[", section_close="]</tool_calls>")
_MINIMAX_M1 = replace(_NEMOTRON_V2, family="minimax_m1", section_open="<tool_calls>\n",
                      section_close="\n</tool_calls>", call_sep="\n")
_FIREFUNCTION = replace(_NEMOTRON_V2, family="firefunction_v2", section_open=" functools[", section_close="]")
_GRANITE = replace(_NEMOTRON_V2, family="granite", section_open="<|tool_call|>[", section_close="]")
_GIGACHAT = CallSyntax("gigachat", call_open='<|function_call|>{"name": "', name_end='", "arguments": ',
                       call_close="}")
_GIGACHAT_V3 = CallSyntax("gigachat_v3", call_open='<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "',
                          name_end='", "arguments": ', call_close="}",
                          trigger_text="<|message_sep|>\n\nfunction call<|role_sep|>", one_call=True)
_COMMAND = CallSyntax("command_r7b", section_open="<|START_ACTION|>[\n    ", section_close="\n]<|END_ACTION|>",
                      call_sep=",\n    ", call_open='{"tool_call_id": "{index}", "tool_name": "',
                      name_end='", "parameters": ', call_close="}")
_COMMAND_R_PLUS = CallSyntax("command_r_plus", section_open="Action:\n```json\n[\n", section_close="\n]```",
                             call_sep=",\n", call_open='    {\n        "tool_name": "',
                             name_end='",\n        "parameters": ', call_close="\n    }")
_SOLAR_OPEN = CallSyntax("solar_open", section_open="<|tool_calls|>", section_close="<|calls|>",
                         call_open="<|tool_call:begin|>{id10}<|tool_call:name|>", name_end="<|tool_call:args|>",
                         call_close="<|tool_call:end|>")
_APERTUS = CallSyntax("apertus", section_open="<|tools_prefix|>[", section_close="]<|tools_suffix|>",
                      call_sep=", ", call_open='{"', name_end='": ', call_close="}")


_DETECTION: tuple[tuple[tuple[str, ...], CallSyntax], ...] = (
    # (pieces the source must all hold, the family), most specific first: several families share <tool_call>.
    (("<seed:tool_call>",), _SEED_OSS),
    (("<minimax:tool_call>",), _MINIMAX_M2),
    (("DSML", "invoke name=", "function_calls"), _DSML_FUNCTIONS),
    (("DSML", "invoke name="), _DSML_TOOLS),
    (("<arg_key:opensource>",), _HUNYUAN),
    (("<arg_key>", "<tool_call>"), _GLM),  # or its compact layout: see layouts()
    (("<tool_call>", "<function=", "<parameter="), _QWEN3_CODER),
    (("<|tool_calls_section_begin|>",), _KIMI_K2),
    (("tool▁calls▁begin", "```json"), _DEEPSEEK_R1),
    (("tool▁calls▁begin",), _DEEPSEEK_V3),
    (("<tool_calls>",), _APRIEL),  # or MiniMax M1's layout: see layouts()
    (("<TOOLCALL>",), _NEMOTRON_V2),
    (("functools[",), _FIREFUNCTION),
    (("<|tool_call|>",), _GRANITE),
    (("<|START_ACTION|>",), _COMMAND),
    (("Action:", "```json", '"tool_name": "'), _COMMAND_R_PLUS),
    (("<|tools_prefix|>",), _APERTUS),
    (("<|tool_call:begin|>", "<|tool_call:name|>"), _SOLAR_OPEN),
    (("<|function_call|>",), _GIGACHAT),
    (("<|role_sep|>", "<|message_sep|>", "function call"), _GIGACHAT_V3),
    (("[TOOL_CALLS]", "[ARGS]", "[CALL_ID]"), _MISTRAL_CALL_ID),
    (("[TOOL_CALLS]", "[ARGS]"), _MISTRAL_ARGS),
    (('<function name="', '<param name="'), _MINICPM),
    (("<function=", "<|python_tag|>"), _FUNCTIONARY),
)


def detect_syntax(source: str) -> CallSyntax | None:
    """The family a template's source writes its calls in, by the pieces only that family's templates hold."""
    for pieces, syntax in _DETECTION:
        if all(piece in source for piece in pieces):
            return syntax
    return None


SYNTAXES: dict[str, CallSyntax] = {s.family: s for s in (
    _QWEN3_CODER, _SEED_OSS, _GLM, _GLM_COMPACT, _MINIMAX_M2, _DSML_FUNCTIONS, _DSML_TOOLS, _HUNYUAN, _MINICPM,
    _KIMI_K2, _DEEPSEEK_R1, _DEEPSEEK_V3, _MISTRAL_ARGS, _MISTRAL_CALL_ID, _FUNCTIONARY, _NEMOTRON_V2, _APRIEL,
    _MINIMAX_M1, _FIREFUNCTION, _GRANITE, _GIGACHAT, _APERTUS, _COMMAND, _COMMAND_R_PLUS, _SOLAR_OPEN,
    _GIGACHAT_V3)}
"""Every syntax by its format name (a family with two layouts has a name for each)."""

_LAYOUTS = {"glm": ("glm", "glm_compact"), "apriel": ("apriel", "minimax_m1")}
"""Families whose templates differ in layout only: the one a template writes is found by rendering a call."""


def layouts(fmt: str) -> tuple[str, ...]:
    """The layouts a detected format may be written in, the detected one first."""
    return _LAYOUTS.get(fmt, (fmt,))


PROBE_CALL = ("get_weather", {"city": "Paris", "days": 2})
"""The call rendered to tell layouts apart."""
