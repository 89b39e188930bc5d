"""Contains all the data models used in inputs/outputs"""

from .batch import Batch
from .batch_error import BatchError
from .batch_errors_type_0 import BatchErrorsType0
from .batch_errors_type_0_object import BatchErrorsType0Object
from .batch_metadata_type_0 import BatchMetadataType0
from .batch_object import BatchObject
from .batch_request_counts import BatchRequestCounts
from .batch_status import BatchStatus
from .batch_usage import BatchUsage
from .batch_usage_input_tokens_details import BatchUsageInputTokensDetails
from .batch_usage_output_tokens_details import BatchUsageOutputTokensDetails
from .capabilities import Capabilities
from .capabilities_dialect import CapabilitiesDialect
from .capabilities_modalities import CapabilitiesModalities
from .capabilities_pooling_type_1 import CapabilitiesPoolingType1
from .capabilities_pooling_type_2_type_1 import CapabilitiesPoolingType2Type1
from .capabilities_pooling_type_3_type_1 import CapabilitiesPoolingType3Type1
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
from .chat_completion_request_reasoning_effort import ChatCompletionRequestReasoningEffort
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
from .create_batch_request import CreateBatchRequest
from .create_batch_request_endpoint import CreateBatchRequestEndpoint
from .create_batch_request_metadata_type_0 import CreateBatchRequestMetadataType0
from .create_batch_request_output_expires_after import CreateBatchRequestOutputExpiresAfter
from .create_file_request import CreateFileRequest
from .create_file_request_expires_afteranchor import CreateFileRequestExpiresAfteranchor
from .create_file_request_purpose import CreateFileRequestPurpose
from .embedding_list import EmbeddingList
from .embedding_list_data_item import EmbeddingListDataItem
from .embedding_list_data_item_object import EmbeddingListDataItemObject
from .embedding_list_object import EmbeddingListObject
from .embedding_list_usage import EmbeddingListUsage
from .embedding_request import EmbeddingRequest
from .embedding_request_encoding_format import EmbeddingRequestEncodingFormat
from .error_response import ErrorResponse
from .error_response_error import ErrorResponseError
from .file_deleted import FileDeleted
from .file_deleted_object import FileDeletedObject
from .get_health_response_200 import GetHealthResponse200
from .get_health_response_200_status import GetHealthResponse200Status
from .list_batches_response import ListBatchesResponse
from .list_batches_response_object import ListBatchesResponseObject
from .list_files_order import ListFilesOrder
from .list_files_response import ListFilesResponse
from .list_files_response_object import ListFilesResponseObject
from .list_input_items_order import ListInputItemsOrder
from .list_lora_adapters_response_200 import ListLoraAdaptersResponse200
from .list_lora_adapters_response_200_data_item import ListLoraAdaptersResponse200DataItem
from .list_lora_adapters_response_200_data_item_object import ListLoraAdaptersResponse200DataItemObject
from .list_lora_adapters_response_200_data_item_origin import ListLoraAdaptersResponse200DataItemOrigin
from .list_lora_adapters_response_200_object import ListLoraAdaptersResponse200Object
from .load_lora_adapter_body import LoadLoraAdapterBody
from .load_lora_adapter_response_200 import LoadLoraAdapterResponse200
from .load_lora_adapter_response_200_data_item import LoadLoraAdapterResponse200DataItem
from .load_lora_adapter_response_200_data_item_object import LoadLoraAdapterResponse200DataItemObject
from .load_lora_adapter_response_200_data_item_origin import LoadLoraAdapterResponse200DataItemOrigin
from .load_lora_adapter_response_200_object import LoadLoraAdapterResponse200Object
from .model import Model
from .model_architecture import ModelArchitecture
from .model_list import ModelList
from .model_list_object import ModelListObject
from .model_load_request import ModelLoadRequest
from .model_load_request_split_mode import ModelLoadRequestSplitMode
from .model_memory import ModelMemory
from .model_memory_checkpoints import ModelMemoryCheckpoints
from .model_memory_kind import ModelMemoryKind
from .model_meta import ModelMeta
from .model_object import ModelObject
from .model_unloaded import ModelUnloaded
from .model_unloaded_object import ModelUnloadedObject
from .open_ai_file import OpenAIFile
from .open_ai_file_object import OpenAIFileObject
from .open_ai_file_purpose import OpenAIFilePurpose
from .open_ai_file_status import OpenAIFileStatus
from .props import Props
from .props_chat_template_source import PropsChatTemplateSource
from .props_default_generation_settings import PropsDefaultGenerationSettings
from .props_default_generation_settings_params import PropsDefaultGenerationSettingsParams
from .props_flash_attention import PropsFlashAttention
from .props_kv_cache import PropsKvCache
from .rerank_request import RerankRequest
from .rerank_request_documents_item_type_1 import RerankRequestDocumentsItemType1
from .rerank_response import RerankResponse
from .rerank_response_object import RerankResponseObject
from .rerank_response_results_item import RerankResponseResultsItem
from .rerank_response_results_item_document import RerankResponseResultsItemDocument
from .rerank_response_usage import RerankResponseUsage
from .response_content_part import ResponseContentPart
from .response_create_request import ResponseCreateRequest
from .response_create_request_chat_template_kwargs_type_0 import ResponseCreateRequestChatTemplateKwargsType0
from .response_create_request_conversation_type_1 import ResponseCreateRequestConversationType1
from .response_create_request_metadata_type_0 import ResponseCreateRequestMetadataType0
from .response_create_request_prompt_type_0 import ResponseCreateRequestPromptType0
from .response_create_request_reasoning_type_0 import ResponseCreateRequestReasoningType0
from .response_create_request_reasoning_type_0_effort import ResponseCreateRequestReasoningType0Effort
from .response_create_request_text_type_0 import ResponseCreateRequestTextType0
from .response_create_request_tool_choice_type_0 import ResponseCreateRequestToolChoiceType0
from .response_create_request_tool_choice_type_1 import ResponseCreateRequestToolChoiceType1
from .response_create_request_truncation import ResponseCreateRequestTruncation
from .response_deleted import ResponseDeleted
from .response_deleted_object import ResponseDeletedObject
from .response_function_call import ResponseFunctionCall
from .response_function_call_status import ResponseFunctionCallStatus
from .response_function_call_type import ResponseFunctionCallType
from .response_input_item import ResponseInputItem
from .response_input_item_role import ResponseInputItemRole
from .response_item_list import ResponseItemList
from .response_item_list_object import ResponseItemListObject
from .response_object import ResponseObject
from .response_object_error_type_0 import ResponseObjectErrorType0
from .response_object_incomplete_details_type_0 import ResponseObjectIncompleteDetailsType0
from .response_object_incomplete_details_type_0_reason import ResponseObjectIncompleteDetailsType0Reason
from .response_object_metadata import ResponseObjectMetadata
from .response_object_object import ResponseObjectObject
from .response_object_reasoning import ResponseObjectReasoning
from .response_object_status import ResponseObjectStatus
from .response_object_text import ResponseObjectText
from .response_object_tool_choice_type_1 import ResponseObjectToolChoiceType1
from .response_object_truncation import ResponseObjectTruncation
from .response_output_message import ResponseOutputMessage
from .response_output_message_role import ResponseOutputMessageRole
from .response_output_message_status import ResponseOutputMessageStatus
from .response_output_message_type import ResponseOutputMessageType
from .response_output_text import ResponseOutputText
from .response_output_text_annotations_item import ResponseOutputTextAnnotationsItem
from .response_output_text_logprobs_item import ResponseOutputTextLogprobsItem
from .response_output_text_type import ResponseOutputTextType
from .response_reasoning_item import ResponseReasoningItem
from .response_reasoning_item_status import ResponseReasoningItemStatus
from .response_reasoning_item_type import ResponseReasoningItemType
from .response_server_sent_event import ResponseServerSentEvent
from .response_server_sent_event_event import ResponseServerSentEventEvent
from .response_stored_item import ResponseStoredItem
from .response_stored_item_content_item import ResponseStoredItemContentItem
from .response_stored_item_output_type_1_item import ResponseStoredItemOutputType1Item
from .response_stored_item_role import ResponseStoredItemRole
from .response_stored_item_summary_item import ResponseStoredItemSummaryItem
from .response_stored_item_type import ResponseStoredItemType
from .response_stream_event import ResponseStreamEvent
from .response_stream_event_logprobs_item import ResponseStreamEventLogprobsItem
from .response_summary_text import ResponseSummaryText
from .response_summary_text_type import ResponseSummaryTextType
from .response_text_format import ResponseTextFormat
from .response_text_format_schema import ResponseTextFormatSchema
from .response_text_format_type import ResponseTextFormatType
from .response_tool import ResponseTool
from .response_tool_parameters_type_0 import ResponseToolParametersType0
from .response_tool_tools_item import ResponseToolToolsItem
from .response_usage import ResponseUsage
from .response_usage_input_tokens_details import ResponseUsageInputTokensDetails
from .response_usage_output_tokens_details import ResponseUsageOutputTokensDetails
from .sampling_fields import SamplingFields
from .sampling_fields_stream_options_type_0 import SamplingFieldsStreamOptionsType0
from .slot import Slot
from .slot_kv_disk_type_0 import SlotKvDiskType0
from .slot_kv_pool import SlotKvPool
from .slot_lanes_item import SlotLanesItem
from .slot_lanes_item_context import SlotLanesItemContext
from .slot_lanes_item_state import SlotLanesItemState
from .slot_params import SlotParams
from .slot_rates import SlotRates
from .slot_state import SlotState
from .slot_tick_plan import SlotTickPlan
from .slot_totals import SlotTotals
from .tokenize_request import TokenizeRequest
from .tokenize_response import TokenizeResponse
from .tool_call import ToolCall
from .tool_call_function import ToolCallFunction
from .tool_call_type import ToolCallType
from .transcript_event import TranscriptEvent
from .transcript_event_type import TranscriptEventType
from .transcript_server_sent_event import TranscriptServerSentEvent
from .transcription import Transcription
from .transcription_request import TranscriptionRequest
from .transcription_request_response_format import TranscriptionRequestResponseFormat
from .transcription_request_timestamp_granularities_item import TranscriptionRequestTimestampGranularitiesItem
from .transcription_segments_item import TranscriptionSegmentsItem
from .transcription_task import TranscriptionTask
from .transcription_usage import TranscriptionUsage
from .transcription_words_item import TranscriptionWordsItem
from .unload_lora_adapter_body import UnloadLoraAdapterBody
from .unload_lora_adapter_response_200 import UnloadLoraAdapterResponse200
from .unload_lora_adapter_response_200_data_item import UnloadLoraAdapterResponse200DataItem
from .unload_lora_adapter_response_200_data_item_object import UnloadLoraAdapterResponse200DataItemObject
from .unload_lora_adapter_response_200_data_item_origin import UnloadLoraAdapterResponse200DataItemOrigin
from .unload_lora_adapter_response_200_object import UnloadLoraAdapterResponse200Object
from .unload_model_body import UnloadModelBody
from .usage import Usage
from .usage_prompt_tokens_details import UsagePromptTokensDetails

__all__ = (
    "Batch",
    "BatchError",
    "BatchErrorsType0",
    "BatchErrorsType0Object",
    "BatchMetadataType0",
    "BatchObject",
    "BatchRequestCounts",
    "BatchStatus",
    "BatchUsage",
    "BatchUsageInputTokensDetails",
    "BatchUsageOutputTokensDetails",
    "Capabilities",
    "CapabilitiesDialect",
    "CapabilitiesModalities",
    "CapabilitiesPoolingType1",
    "CapabilitiesPoolingType2Type1",
    "CapabilitiesPoolingType3Type1",
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
    "ChatCompletionRequestReasoningEffort",
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
    "CreateBatchRequest",
    "CreateBatchRequestEndpoint",
    "CreateBatchRequestMetadataType0",
    "CreateBatchRequestOutputExpiresAfter",
    "CreateFileRequest",
    "CreateFileRequestExpiresAfteranchor",
    "CreateFileRequestPurpose",
    "EmbeddingList",
    "EmbeddingListDataItem",
    "EmbeddingListDataItemObject",
    "EmbeddingListObject",
    "EmbeddingListUsage",
    "EmbeddingRequest",
    "EmbeddingRequestEncodingFormat",
    "ErrorResponse",
    "ErrorResponseError",
    "FileDeleted",
    "FileDeletedObject",
    "GetHealthResponse200",
    "GetHealthResponse200Status",
    "ListBatchesResponse",
    "ListBatchesResponseObject",
    "ListFilesOrder",
    "ListFilesResponse",
    "ListFilesResponseObject",
    "ListInputItemsOrder",
    "ListLoraAdaptersResponse200",
    "ListLoraAdaptersResponse200DataItem",
    "ListLoraAdaptersResponse200DataItemObject",
    "ListLoraAdaptersResponse200DataItemOrigin",
    "ListLoraAdaptersResponse200Object",
    "LoadLoraAdapterBody",
    "LoadLoraAdapterResponse200",
    "LoadLoraAdapterResponse200DataItem",
    "LoadLoraAdapterResponse200DataItemObject",
    "LoadLoraAdapterResponse200DataItemOrigin",
    "LoadLoraAdapterResponse200Object",
    "Model",
    "ModelArchitecture",
    "ModelList",
    "ModelListObject",
    "ModelLoadRequest",
    "ModelLoadRequestSplitMode",
    "ModelMemory",
    "ModelMemoryCheckpoints",
    "ModelMemoryKind",
    "ModelMeta",
    "ModelObject",
    "ModelUnloaded",
    "ModelUnloadedObject",
    "OpenAIFile",
    "OpenAIFileObject",
    "OpenAIFilePurpose",
    "OpenAIFileStatus",
    "Props",
    "PropsChatTemplateSource",
    "PropsDefaultGenerationSettings",
    "PropsDefaultGenerationSettingsParams",
    "PropsFlashAttention",
    "PropsKvCache",
    "RerankRequest",
    "RerankRequestDocumentsItemType1",
    "RerankResponse",
    "RerankResponseObject",
    "RerankResponseResultsItem",
    "RerankResponseResultsItemDocument",
    "RerankResponseUsage",
    "ResponseContentPart",
    "ResponseCreateRequest",
    "ResponseCreateRequestChatTemplateKwargsType0",
    "ResponseCreateRequestConversationType1",
    "ResponseCreateRequestMetadataType0",
    "ResponseCreateRequestPromptType0",
    "ResponseCreateRequestReasoningType0",
    "ResponseCreateRequestReasoningType0Effort",
    "ResponseCreateRequestTextType0",
    "ResponseCreateRequestToolChoiceType0",
    "ResponseCreateRequestToolChoiceType1",
    "ResponseCreateRequestTruncation",
    "ResponseDeleted",
    "ResponseDeletedObject",
    "ResponseFunctionCall",
    "ResponseFunctionCallStatus",
    "ResponseFunctionCallType",
    "ResponseInputItem",
    "ResponseInputItemRole",
    "ResponseItemList",
    "ResponseItemListObject",
    "ResponseObject",
    "ResponseObjectErrorType0",
    "ResponseObjectIncompleteDetailsType0",
    "ResponseObjectIncompleteDetailsType0Reason",
    "ResponseObjectMetadata",
    "ResponseObjectObject",
    "ResponseObjectReasoning",
    "ResponseObjectStatus",
    "ResponseObjectText",
    "ResponseObjectToolChoiceType1",
    "ResponseObjectTruncation",
    "ResponseOutputMessage",
    "ResponseOutputMessageRole",
    "ResponseOutputMessageStatus",
    "ResponseOutputMessageType",
    "ResponseOutputText",
    "ResponseOutputTextAnnotationsItem",
    "ResponseOutputTextLogprobsItem",
    "ResponseOutputTextType",
    "ResponseReasoningItem",
    "ResponseReasoningItemStatus",
    "ResponseReasoningItemType",
    "ResponseServerSentEvent",
    "ResponseServerSentEventEvent",
    "ResponseStoredItem",
    "ResponseStoredItemContentItem",
    "ResponseStoredItemOutputType1Item",
    "ResponseStoredItemRole",
    "ResponseStoredItemSummaryItem",
    "ResponseStoredItemType",
    "ResponseStreamEvent",
    "ResponseStreamEventLogprobsItem",
    "ResponseSummaryText",
    "ResponseSummaryTextType",
    "ResponseTextFormat",
    "ResponseTextFormatSchema",
    "ResponseTextFormatType",
    "ResponseTool",
    "ResponseToolParametersType0",
    "ResponseToolToolsItem",
    "ResponseUsage",
    "ResponseUsageInputTokensDetails",
    "ResponseUsageOutputTokensDetails",
    "SamplingFields",
    "SamplingFieldsStreamOptionsType0",
    "Slot",
    "SlotKvDiskType0",
    "SlotKvPool",
    "SlotLanesItem",
    "SlotLanesItemContext",
    "SlotLanesItemState",
    "SlotParams",
    "SlotRates",
    "SlotState",
    "SlotTickPlan",
    "SlotTotals",
    "TokenizeRequest",
    "TokenizeResponse",
    "ToolCall",
    "ToolCallFunction",
    "ToolCallType",
    "TranscriptEvent",
    "TranscriptEventType",
    "Transcription",
    "TranscriptionRequest",
    "TranscriptionRequestResponseFormat",
    "TranscriptionRequestTimestampGranularitiesItem",
    "TranscriptionSegmentsItem",
    "TranscriptionTask",
    "TranscriptionUsage",
    "TranscriptionWordsItem",
    "TranscriptServerSentEvent",
    "UnloadLoraAdapterBody",
    "UnloadLoraAdapterResponse200",
    "UnloadLoraAdapterResponse200DataItem",
    "UnloadLoraAdapterResponse200DataItemObject",
    "UnloadLoraAdapterResponse200DataItemOrigin",
    "UnloadLoraAdapterResponse200Object",
    "UnloadModelBody",
    "Usage",
    "UsagePromptTokensDetails",
)
