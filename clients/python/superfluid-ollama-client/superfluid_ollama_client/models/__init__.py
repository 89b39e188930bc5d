"""Contains all the data models used in inputs/outputs"""

from .chat_record import ChatRecord
from .chat_request import ChatRequest
from .embed_request import EmbedRequest
from .embed_response import EmbedResponse
from .embeddings_request import EmbeddingsRequest
from .embeddings_response import EmbeddingsResponse
from .error_response import ErrorResponse
from .format_type_1 import FormatType1
from .generate_record import GenerateRecord
from .generate_request import GenerateRequest
from .logprob import Logprob
from .logprob_top_logprobs_item import LogprobTopLogprobsItem
from .message import Message
from .message_role import MessageRole
from .model_details import ModelDetails
from .ollama_is_running_response_200 import OllamaIsRunningResponse200
from .options_type_0 import OptionsType0
from .ps_response import PsResponse
from .ps_response_models_item import PsResponseModelsItem
from .reply_message import ReplyMessage
from .reply_message_role import ReplyMessageRole
from .reply_message_tool_calls_item import ReplyMessageToolCallsItem
from .reply_message_tool_calls_item_function import ReplyMessageToolCallsItemFunction
from .reply_message_tool_calls_item_function_arguments import ReplyMessageToolCallsItemFunctionArguments
from .show_request import ShowRequest
from .show_response import ShowResponse
from .show_response_capabilities_item import ShowResponseCapabilitiesItem
from .show_response_model_info import ShowResponseModelInfo
from .tags_response import TagsResponse
from .tags_response_models_item import TagsResponseModelsItem
from .tags_response_models_item_capabilities_item import TagsResponseModelsItemCapabilitiesItem
from .think_type_1 import ThinkType1
from .tool import Tool
from .tool_call import ToolCall
from .tool_call_function import ToolCallFunction
from .tool_call_function_arguments_type_0 import ToolCallFunctionArgumentsType0
from .tool_function import ToolFunction
from .tool_function_parameters_type_0 import ToolFunctionParametersType0
from .tool_type import ToolType
from .totals import Totals
from .totals_done_reason import TotalsDoneReason
from .version_response import VersionResponse
from .version_response_compatibility import VersionResponseCompatibility
from .version_response_server import VersionResponseServer

__all__ = (
    "ChatRecord",
    "ChatRequest",
    "EmbeddingsRequest",
    "EmbeddingsResponse",
    "EmbedRequest",
    "EmbedResponse",
    "ErrorResponse",
    "FormatType1",
    "GenerateRecord",
    "GenerateRequest",
    "Logprob",
    "LogprobTopLogprobsItem",
    "Message",
    "MessageRole",
    "ModelDetails",
    "OllamaIsRunningResponse200",
    "OptionsType0",
    "PsResponse",
    "PsResponseModelsItem",
    "ReplyMessage",
    "ReplyMessageRole",
    "ReplyMessageToolCallsItem",
    "ReplyMessageToolCallsItemFunction",
    "ReplyMessageToolCallsItemFunctionArguments",
    "ShowRequest",
    "ShowResponse",
    "ShowResponseCapabilitiesItem",
    "ShowResponseModelInfo",
    "TagsResponse",
    "TagsResponseModelsItem",
    "TagsResponseModelsItemCapabilitiesItem",
    "ThinkType1",
    "Tool",
    "ToolCall",
    "ToolCallFunction",
    "ToolCallFunctionArgumentsType0",
    "ToolFunction",
    "ToolFunctionParametersType0",
    "ToolType",
    "Totals",
    "TotalsDoneReason",
    "VersionResponse",
    "VersionResponseCompatibility",
    "VersionResponseServer",
)
