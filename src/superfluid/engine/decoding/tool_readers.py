"""Reading calls back out of a reply as it streams, one reader per call format.

A reader is fed the reply's text in whatever pieces decoding produces and hands back ``content`` (words for
the client) and ``ToolCallDelta``s in OpenAI's partial shape: an opening delta with the call's id and name,
then fragments of its arguments JSON on the same index. Call markup never reaches ``content``; text that may
still turn into markup is held back until it is known.
"""

from __future__ import annotations

from superfluid.engine.decoding.call_syntax import SYNTAXES
from superfluid.engine.decoding.gemma4_calls import Gemma4Reader
from superfluid.engine.decoding.harmony_reader import HarmonyReader
from superfluid.engine.decoding.json_reply_readers import GenericReader, Llama3Reader
from superfluid.engine.decoding.kimi_k3_reader import KimiK3Reader
from superfluid.engine.decoding.marked_readers import GemmaReader, HermesReader, Lfm2Reader, MistralReader
from superfluid.engine.decoding.muse_glimmer_reader import MuseGlimmerReader
from superfluid.engine.decoding.recipient_reader import FunctionaryV32Reader
from superfluid.engine.decoding.syntax_reader import SyntaxReader
from superfluid.engine.decoding.tool_calls import ToolFormat, ToolSpec

CallReader = (GenericReader | HermesReader | MistralReader | GemmaReader | Lfm2Reader | Llama3Reader | SyntaxReader
              | HarmonyReader | FunctionaryV32Reader | Gemma4Reader | KimiK3Reader
              | MuseGlimmerReader)

_READERS: dict[str, type[GenericReader | HermesReader | MistralReader | GemmaReader | Lfm2Reader | Llama3Reader]] = {
    "generic": GenericReader,
    "hermes": HermesReader,
    "llama3": Llama3Reader,
    "mistral": MistralReader,
    "gemma": GemmaReader,
    "lfm2": Lfm2Reader,
}


def call_reader(fmt: ToolFormat, tools: tuple[ToolSpec, ...] = (), *, json_answer: bool = False) -> CallReader:
    """The reader of one format; ``tools`` tell a call-syntax family's reader which values are strings;
    ``json_answer``: the generic format's reply without calls is a JSON value, not a string."""
    if fmt == "generic":
        return GenericReader(json_answer)
    if fmt in SYNTAXES:
        return SyntaxReader(SYNTAXES[fmt], tools)
    if fmt == "harmony":
        return HarmonyReader()
    if fmt == "functionary_v3_2":
        return FunctionaryV32Reader()
    if fmt == "gemma4":
        return Gemma4Reader()
    if fmt == "kimi_k3":
        return KimiK3Reader(tools)
    if fmt == "muse_glimmer":
        return MuseGlimmerReader(tools)
    return _READERS[fmt]()
