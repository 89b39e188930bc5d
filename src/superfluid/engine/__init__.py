"""The engine: the only package that imports llama_cpp, and the one surface the rest of superfluid uses.

Everything outside ``superfluid.engine`` imports from this module and nothing below it (tests/test_engine_surface.py
fails otherwise), the way httpx exposes its private modules through its ``__init__``. What is listed here is what
handlers, the HTTP layer, the CLI, batches and the fleet may rely on, grouped by who uses it, and nothing they
do not import; everything else in the package may move.

Rooms: ``models/`` resolves references to files (``model_sources``), loads a GGUF and owns its llama.cpp context
(``llama_model``), renders prompts (``chat_template``), prepares and admits requests (``prompts``, ``intake``,
behind ``served_model``), and hands served models out (``registry``);
``decoding/`` builds grammars, sampler chains and the readers of native tool-call and reasoning formats;
``scheduling/`` runs the lanes on one engine thread; ``embedding/`` and ``whisper/`` are the other two runtimes.
"""

from superfluid.engine.decoding.grammar import ANY_JSON_OBJECT, Constraint
from superfluid.engine.decoding.tool_calls import ToolCallDelta, ToolChoice, ToolPolicy, ToolSpec
from superfluid.engine.embedding.model import EmbeddingModel
from superfluid.engine.embedding.vectors import Vector, base64_le_f32, cosine_ranking
from superfluid.engine.embedding.vectors import normalize as normalize_vector
from superfluid.engine.embedding.vectors import truncate as truncate_vector
from superfluid.engine.models.adapter_types import AdapterSet
from superfluid.engine.models.catalog import entry_for
from superfluid.engine.models.chat_template import (
    BUILTIN_TEMPLATES,
    ChatTemplate,
    TemplateCompileError,
    can_switch_thinking,
)
from superfluid.engine.models.devices import backend_devices, device_lines, gpu_build
from superfluid.engine.models.llama_model import (
    BACKEND_VERSION,
    flash_attention,
    lanes_own_their_cells,
    offload_problem,
    shared_kv_pool,
)
from superfluid.engine.models.lora import AdapterCatalog, settings_problem
from superfluid.engine.models.model_sources import (
    DEFAULT_MODEL,
    ModelSource,
    ModelSourceError,
    default_references,
    hub_unreachable,
)
from superfluid.engine.models.offload import OFFLOAD_FIELDS, offload_from
from superfluid.engine.models.profile import ModelProfile, check_template_file
from superfluid.engine.models.registry import ModelRegistry
from superfluid.engine.models.runtimes import RUNTIMES, AnyProfile, LoadedModel, placement_of
from superfluid.engine.models.served_model import LIGHT_PROMPT_CHARS, ServedModel, is_light
from superfluid.engine.request_scope import CURRENT, RequestScope
from superfluid.engine.scheduling.job import QOS_CLASSES, QOS_RANK
from superfluid.engine.scheduling.stats import EngineStats, Histogram, LoadStats
from superfluid.engine.scheduling.stream import GenerationStream
from superfluid.engine.types import (
    ChatMessage,
    ChatPrompt,
    ChoiceResult,
    FimPrompt,
    Finished,
    FinishReason,
    GenerationRequest,
    GenerationResult,
    PastCall,
    PreparedPrompt,
    Prompt,
    SamplingParams,
    TextDelta,
    TextPrompt,
    TokenLogprob,
    Usage,
)
from superfluid.engine.whisper.audio import decode as decode_audio
from superfluid.engine.whisper.model import Segment, SpeechModel, SpeechRequest, Transcript

__all__ = [  # noqa: RUF022 - grouped by who uses them, sorted by kin within a group
    # Requests in and events out: what every dialect's handler translates to and from
    "ChatMessage",
    "ChatPrompt",
    "FimPrompt",
    "PastCall",
    "Prompt",
    "TextPrompt",
    "GenerationRequest",
    "SamplingParams",
    "Constraint",
    "ANY_JSON_OBJECT",
    "ToolPolicy",
    "ToolSpec",
    "ToolChoice",
    "PreparedPrompt",
    "LIGHT_PROMPT_CHARS",
    "is_light",
    "GenerationStream",
    "TextDelta",
    "ToolCallDelta",
    "TokenLogprob",
    "Finished",
    "FinishReason",
    "ChoiceResult",
    "GenerationResult",
    "Usage",
    "QOS_CLASSES",
    "QOS_RANK",
    "RequestScope",
    "CURRENT",
    # Served models and the registry that hands them out
    "ModelRegistry",
    "ServedModel",
    "LoadedModel",
    "AnyProfile",
    "ModelProfile",
    "RUNTIMES",
    "placement_of",
    "ChatTemplate",
    "can_switch_thinking",
    "AdapterSet",
    "AdapterCatalog",
    "entry_for",
    "lanes_own_their_cells",
    "shared_kv_pool",
    # The other two runtimes: embeddings and speech
    "EmbeddingModel",
    "Vector",
    "base64_le_f32",
    "cosine_ranking",
    "normalize_vector",
    "truncate_vector",
    "SpeechModel",
    "SpeechRequest",
    "Segment",
    "Transcript",
    "decode_audio",
    # Figures for /metrics and /props
    "EngineStats",
    "Histogram",
    "LoadStats",
    "BACKEND_VERSION",
    # What the command line checks and resolves before a model loads (cli.py, flags.py, the fleet)
    "DEFAULT_MODEL",
    "ModelSource",
    "ModelSourceError",
    "default_references",
    "hub_unreachable",
    "BUILTIN_TEMPLATES",
    "TemplateCompileError",
    "check_template_file",
    "OFFLOAD_FIELDS",
    "offload_from",
    "offload_problem",
    "flash_attention",
    "settings_problem",
    "backend_devices",
    "device_lines",
    "gpu_build",
]
