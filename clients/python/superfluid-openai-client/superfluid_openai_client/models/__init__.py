"""Contains all the data models used in inputs/outputs"""

from .capabilities import Capabilities
from .capabilities_dialect import CapabilitiesDialect
from .capabilities_workload import CapabilitiesWorkload
from .chat_completion import ChatCompletion
from .chat_completion_choices_item import ChatCompletionChoicesItem
from .chat_completion_choices_item_finish_reason import ChatCompletionChoicesItemFinishReason
from .chat_completion_choices_item_logprobs_type_0 import ChatCompletionChoicesItemLogprobsType0
from .chat_completion_choices_item_message import ChatCompletionChoicesItemMessage
from .chat_completion_choices_item_message_role import ChatCompletionChoicesItemMessageRole
from .chat_completion_chunk import ChatCompletionChunk
from .chat_completion_chunk_choices_item import ChatCompletionChunkChoicesItem
from .chat_completion_chunk_choices_item_finish_reason import ChatCompletionChunkChoicesItemFinishReason
from .chat_completion_chunk_choices_item_logprobs_type_0 import ChatCompletionChunkChoicesItemLogprobsType0
from .chat_completion_chunk_object import ChatCompletionChunkObject
from .chat_completion_object import ChatCompletionObject
from .chat_completion_request import ChatCompletionRequest
from .chat_completion_request_chat_template_kwargs_type_0 import ChatCompletionRequestChatTemplateKwargsType0
from .chat_completion_request_logit_bias_type_0 import ChatCompletionRequestLogitBiasType0
from .chat_completion_request_response_format_type_0 import ChatCompletionRequestResponseFormatType0
from .chat_completion_request_response_format_type_0_type import ChatCompletionRequestResponseFormatType0Type
from .chat_completion_request_tool_choice_type_1 import ChatCompletionRequestToolChoiceType1
from .chat_completion_request_tools_type_0_item import ChatCompletionRequestToolsType0Item
from .chat_completion_server_sent_event import ChatCompletionServerSentEvent
from .chat_delta import ChatDelta
from .chat_delta_role import ChatDeltaRole
from .chat_delta_tool_calls_item import ChatDeltaToolCallsItem
from .chat_delta_tool_calls_item_function import ChatDeltaToolCallsItemFunction
from .chat_delta_tool_calls_item_type import ChatDeltaToolCallsItemType
from .chat_extension import ChatExtension
from .chat_extension_spec import ChatExtensionSpec
from .chat_message import ChatMessage
from .chat_message_role import ChatMessageRole
from .completion import Completion
from .completion_choices_item import CompletionChoicesItem
from .completion_choices_item_finish_reason import CompletionChoicesItemFinishReason
from .completion_choices_item_logprobs_type_0 import CompletionChoicesItemLogprobsType0
from .completion_chunk import CompletionChunk
from .completion_chunk_choices_item import CompletionChunkChoicesItem
from .completion_chunk_choices_item_finish_reason import CompletionChunkChoicesItemFinishReason
from .completion_chunk_choices_item_logprobs_type_0 import CompletionChunkChoicesItemLogprobsType0
from .completion_chunk_object import CompletionChunkObject
from .completion_extension import CompletionExtension
from .completion_object import CompletionObject
from .completion_request import CompletionRequest
from .completion_request_fim_mode import CompletionRequestFimMode
from .completion_server_sent_event import CompletionServerSentEvent
from .content_part import ContentPart
from .content_part_type import ContentPartType
from .error_response import ErrorResponse
from .error_response_error import ErrorResponseError
from .model import Model
from .model_architecture import ModelArchitecture
from .model_list import ModelList
from .model_list_object import ModelListObject
from .model_load_request import ModelLoadRequest
from .model_meta import ModelMeta
from .model_object import ModelObject
from .model_unloaded import ModelUnloaded
from .model_unloaded_object import ModelUnloadedObject
from .props import Props
from .props_chat_template_source import PropsChatTemplateSource
from .props_default_generation_settings import PropsDefaultGenerationSettings
from .props_default_generation_settings_params import PropsDefaultGenerationSettingsParams
from .props_kv_cache import PropsKvCache
from .sampling_fields import SamplingFields
from .sampling_fields_stream_options_type_0 import SamplingFieldsStreamOptionsType0
from .slot import Slot
from .slot_kv_pool import SlotKvPool
from .slot_lanes_item import SlotLanesItem
from .slot_lanes_item_context import SlotLanesItemContext
from .slot_lanes_item_state import SlotLanesItemState
from .slot_params import SlotParams
from .slot_rates import SlotRates
from .slot_state import SlotState
from .slot_tick_plan import SlotTickPlan
from .slot_totals import SlotTotals
from .superfluid_handlers_model_admin_unload_body import SuperfluidHandlersModelAdminUnloadBody
from .superfluid_handlers_operations_health_response_200 import SuperfluidHandlersOperationsHealthResponse200
from .superfluid_handlers_operations_health_response_200_status import (
    SuperfluidHandlersOperationsHealthResponse200Status,
)
from .tokenize_request import TokenizeRequest
from .tokenize_response import TokenizeResponse
from .tool_call import ToolCall
from .tool_call_function import ToolCallFunction
from .tool_call_type import ToolCallType
from .usage import Usage
from .usage_prompt_tokens_details import UsagePromptTokensDetails

__all__ = (
    "Capabilities",
    "CapabilitiesDialect",
    "CapabilitiesWorkload",
    "ChatCompletion",
    "ChatCompletionChoicesItem",
    "ChatCompletionChoicesItemFinishReason",
    "ChatCompletionChoicesItemLogprobsType0",
    "ChatCompletionChoicesItemMessage",
    "ChatCompletionChoicesItemMessageRole",
    "ChatCompletionChunk",
    "ChatCompletionChunkChoicesItem",
    "ChatCompletionChunkChoicesItemFinishReason",
    "ChatCompletionChunkChoicesItemLogprobsType0",
    "ChatCompletionChunkObject",
    "ChatCompletionObject",
    "ChatCompletionRequest",
    "ChatCompletionRequestChatTemplateKwargsType0",
    "ChatCompletionRequestLogitBiasType0",
    "ChatCompletionRequestResponseFormatType0",
    "ChatCompletionRequestResponseFormatType0Type",
    "ChatCompletionRequestToolChoiceType1",
    "ChatCompletionRequestToolsType0Item",
    "ChatCompletionServerSentEvent",
    "ChatDelta",
    "ChatDeltaRole",
    "ChatDeltaToolCallsItem",
    "ChatDeltaToolCallsItemFunction",
    "ChatDeltaToolCallsItemType",
    "ChatExtension",
    "ChatExtensionSpec",
    "ChatMessage",
    "ChatMessageRole",
    "Completion",
    "CompletionChoicesItem",
    "CompletionChoicesItemFinishReason",
    "CompletionChoicesItemLogprobsType0",
    "CompletionChunk",
    "CompletionChunkChoicesItem",
    "CompletionChunkChoicesItemFinishReason",
    "CompletionChunkChoicesItemLogprobsType0",
    "CompletionChunkObject",
    "CompletionExtension",
    "CompletionObject",
    "CompletionRequest",
    "CompletionRequestFimMode",
    "CompletionServerSentEvent",
    "ContentPart",
    "ContentPartType",
    "ErrorResponse",
    "ErrorResponseError",
    "Model",
    "ModelArchitecture",
    "ModelList",
    "ModelListObject",
    "ModelLoadRequest",
    "ModelMeta",
    "ModelObject",
    "ModelUnloaded",
    "ModelUnloadedObject",
    "Props",
    "PropsChatTemplateSource",
    "PropsDefaultGenerationSettings",
    "PropsDefaultGenerationSettingsParams",
    "PropsKvCache",
    "SamplingFields",
    "SamplingFieldsStreamOptionsType0",
    "Slot",
    "SlotKvPool",
    "SlotLanesItem",
    "SlotLanesItemContext",
    "SlotLanesItemState",
    "SlotParams",
    "SlotRates",
    "SlotState",
    "SlotTickPlan",
    "SlotTotals",
    "SuperfluidHandlersModelAdminUnloadBody",
    "SuperfluidHandlersOperationsHealthResponse200",
    "SuperfluidHandlersOperationsHealthResponse200Status",
    "TokenizeRequest",
    "TokenizeResponse",
    "ToolCall",
    "ToolCallFunction",
    "ToolCallType",
    "Usage",
    "UsagePromptTokensDetails",
)
