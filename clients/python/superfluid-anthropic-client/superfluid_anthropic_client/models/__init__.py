"""Contains all the data models used in inputs/outputs"""

from .cache_control_type_0 import CacheControlType0
from .content_block_delta_event import ContentBlockDeltaEvent
from .content_block_delta_event_delta_type_0 import ContentBlockDeltaEventDeltaType0
from .content_block_delta_event_delta_type_0_type import ContentBlockDeltaEventDeltaType0Type
from .content_block_delta_event_delta_type_1 import ContentBlockDeltaEventDeltaType1
from .content_block_delta_event_delta_type_1_type import ContentBlockDeltaEventDeltaType1Type
from .content_block_delta_event_delta_type_2 import ContentBlockDeltaEventDeltaType2
from .content_block_delta_event_delta_type_2_type import ContentBlockDeltaEventDeltaType2Type
from .content_block_delta_event_delta_type_3 import ContentBlockDeltaEventDeltaType3
from .content_block_delta_event_delta_type_3_type import ContentBlockDeltaEventDeltaType3Type
from .content_block_delta_event_type import ContentBlockDeltaEventType
from .content_block_start_event import ContentBlockStartEvent
from .content_block_start_event_type import ContentBlockStartEventType
from .content_block_stop_event import ContentBlockStopEvent
from .content_block_stop_event_type import ContentBlockStopEventType
from .count_tokens_request import CountTokensRequest
from .document_block_param import DocumentBlockParam
from .document_block_param_source import DocumentBlockParamSource
from .document_block_param_type import DocumentBlockParamType
from .error_response import ErrorResponse
from .error_response_error import ErrorResponseError
from .error_response_error_type import ErrorResponseErrorType
from .error_response_type import ErrorResponseType
from .image_block_param import ImageBlockParam
from .image_block_param_source import ImageBlockParamSource
from .image_block_param_type import ImageBlockParamType
from .message import Message
from .message_create_request import MessageCreateRequest
from .message_create_request_logit_bias_type_0 import MessageCreateRequestLogitBiasType0
from .message_create_request_metadata import MessageCreateRequestMetadata
from .message_create_request_output_config_type_0 import MessageCreateRequestOutputConfigType0
from .message_create_request_output_config_type_0_format_type_0 import MessageCreateRequestOutputConfigType0FormatType0
from .message_create_request_output_config_type_0_format_type_0_schema import (
    MessageCreateRequestOutputConfigType0FormatType0Schema,
)
from .message_create_request_output_config_type_0_format_type_0_type import (
    MessageCreateRequestOutputConfigType0FormatType0Type,
)
from .message_delta_event import MessageDeltaEvent
from .message_delta_event_delta import MessageDeltaEventDelta
from .message_delta_event_delta_stop_reason import MessageDeltaEventDeltaStopReason
from .message_delta_event_type import MessageDeltaEventType
from .message_param import MessageParam
from .message_param_role import MessageParamRole
from .message_role import MessageRole
from .message_server_sent_event import MessageServerSentEvent
from .message_server_sent_event_event import MessageServerSentEventEvent
from .message_start_event import MessageStartEvent
from .message_start_event_type import MessageStartEventType
from .message_stop_event import MessageStopEvent
from .message_stop_event_type import MessageStopEventType
from .message_stop_reason import MessageStopReason
from .message_tokens_count import MessageTokensCount
from .message_type import MessageType
from .ping_event import PingEvent
from .ping_event_type import PingEventType
from .prompt_fields import PromptFields
from .redacted_thinking_block_param import RedactedThinkingBlockParam
from .redacted_thinking_block_param_type import RedactedThinkingBlockParamType
from .text_block import TextBlock
from .text_block_param import TextBlockParam
from .text_block_param_type import TextBlockParamType
from .text_block_type import TextBlockType
from .thinking_block import ThinkingBlock
from .thinking_block_param import ThinkingBlockParam
from .thinking_block_param_type import ThinkingBlockParamType
from .thinking_block_type import ThinkingBlockType
from .thinking_config import ThinkingConfig
from .thinking_config_display import ThinkingConfigDisplay
from .thinking_config_type import ThinkingConfigType
from .tool import Tool
from .tool_choice import ToolChoice
from .tool_choice_type import ToolChoiceType
from .tool_input_schema import ToolInputSchema
from .tool_input_schema_type import ToolInputSchemaType
from .tool_result_block_param import ToolResultBlockParam
from .tool_result_block_param_type import ToolResultBlockParamType
from .tool_use_block import ToolUseBlock
from .tool_use_block_input import ToolUseBlockInput
from .tool_use_block_param import ToolUseBlockParam
from .tool_use_block_param_input import ToolUseBlockParamInput
from .tool_use_block_param_type import ToolUseBlockParamType
from .tool_use_block_type import ToolUseBlockType
from .usage import Usage

__all__ = (
    "CacheControlType0",
    "ContentBlockDeltaEvent",
    "ContentBlockDeltaEventDeltaType0",
    "ContentBlockDeltaEventDeltaType0Type",
    "ContentBlockDeltaEventDeltaType1",
    "ContentBlockDeltaEventDeltaType1Type",
    "ContentBlockDeltaEventDeltaType2",
    "ContentBlockDeltaEventDeltaType2Type",
    "ContentBlockDeltaEventDeltaType3",
    "ContentBlockDeltaEventDeltaType3Type",
    "ContentBlockDeltaEventType",
    "ContentBlockStartEvent",
    "ContentBlockStartEventType",
    "ContentBlockStopEvent",
    "ContentBlockStopEventType",
    "CountTokensRequest",
    "DocumentBlockParam",
    "DocumentBlockParamSource",
    "DocumentBlockParamType",
    "ErrorResponse",
    "ErrorResponseError",
    "ErrorResponseErrorType",
    "ErrorResponseType",
    "ImageBlockParam",
    "ImageBlockParamSource",
    "ImageBlockParamType",
    "Message",
    "MessageCreateRequest",
    "MessageCreateRequestLogitBiasType0",
    "MessageCreateRequestMetadata",
    "MessageCreateRequestOutputConfigType0",
    "MessageCreateRequestOutputConfigType0FormatType0",
    "MessageCreateRequestOutputConfigType0FormatType0Schema",
    "MessageCreateRequestOutputConfigType0FormatType0Type",
    "MessageDeltaEvent",
    "MessageDeltaEventDelta",
    "MessageDeltaEventDeltaStopReason",
    "MessageDeltaEventType",
    "MessageParam",
    "MessageParamRole",
    "MessageRole",
    "MessageServerSentEvent",
    "MessageServerSentEventEvent",
    "MessageStartEvent",
    "MessageStartEventType",
    "MessageStopEvent",
    "MessageStopEventType",
    "MessageStopReason",
    "MessageTokensCount",
    "MessageType",
    "PingEvent",
    "PingEventType",
    "PromptFields",
    "RedactedThinkingBlockParam",
    "RedactedThinkingBlockParamType",
    "TextBlock",
    "TextBlockParam",
    "TextBlockParamType",
    "TextBlockType",
    "ThinkingBlock",
    "ThinkingBlockParam",
    "ThinkingBlockParamType",
    "ThinkingBlockType",
    "ThinkingConfig",
    "ThinkingConfigDisplay",
    "ThinkingConfigType",
    "Tool",
    "ToolChoice",
    "ToolChoiceType",
    "ToolInputSchema",
    "ToolInputSchemaType",
    "ToolResultBlockParam",
    "ToolResultBlockParamType",
    "ToolUseBlock",
    "ToolUseBlockInput",
    "ToolUseBlockParam",
    "ToolUseBlockParamInput",
    "ToolUseBlockParamType",
    "ToolUseBlockType",
    "Usage",
)
