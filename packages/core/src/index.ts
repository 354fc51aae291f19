/**
 * @bosun/core — the event-sourced session log, the durable two-queue inbox, the turn/step loop
 * and its hooks. The config loader is a separate entry (`@bosun/core/config`).
 */
export { BosunError, ErrorCodes, invalidArgument, serializeError } from './errors.js'
export type { BosunErrorOptions, ErrorCode, SerializedError } from './errors.js'
export { freezeParsedJson, isFrozenJson, toFrozenJson } from './json.js'
export { internString } from './intern.js'
export type { JsonValue } from './json.js'
export { assertOptions, compileOptionsValidator, optionsError } from './schema.js'
export type { AssertOptionsOptions, JsonSchema, OptionsProblem } from './schema.js'

export { createUserMessage, derivedFrom, deriveUserMessage, messageText, toUserMessage } from './session/messages.js'
export type {
  AssistantBlock, AssistantMessage, ContentBlock, CreateUserMessageOptions, ImageBlock, MessageInput,
  MessageSource, ReasoningBlock, TextBlock, ToolCallBlock, UserMessage,
} from './session/messages.js'
export { CORE_EVENT_TYPES, LOG_FORMAT_VERSION, isEvent } from './session/events.js'
export { checkEventTypes } from './session/event-types.js'
export type {
  BosunEventMap, Delegation, EventType, KnownEvent, RequestContext, RequestHeader, SessionEvent, SessionHeader, TurnEndReason,
} from './session/events.js'
export { Session } from './session/session.js'
export type { SessionObserver, SessionOptions } from './session/session.js'
export { Surface } from './session/surface.js'
export { sealIdleSessions } from './session/sealer.js'
export type { LogPagesOptions } from './session/sealer.js'

export { Inbox } from './inbox/inbox.js'
export { INBOX_TARGETS } from './inbox/types.js'
export type { InboxNotifications, InboxSplice, InboxTarget } from './inbox/types.js'
export { foldConsumedWork } from './inbox/consumed-work.js'
export type { ConsumedWork, TurnWork } from './inbox/consumed-work.js'

export { ModelError, ModelErrorCodes } from './model.js'
export type {
  ModelAdapter, ModelCallOptions, ModelChunk, ModelErrorCode, ModelErrorOptions, ModelFinishReason,
  ModelMessage, ModelRequest, ModelUsage, StepFinish, ToolSpec,
} from './model.js'
export { createAdapter, defineAdapter } from './adapter.js'
export type { AdapterDefinition } from './adapter.js'

export { Stage, createHooks } from './hooks.js'
export type {
  AgentHooks, AgentStatus, CompactContext, PrepareCallContext, PreStepContext, PreStepDecision, StreamContext,
  ToolResultContext, TurnContext,
} from './hooks.js'
export { definePlugin } from './plugin.js'
export { stepRequestCount } from './loop/step-requests.js'
export type { AgentConfig, BuiltAgent, ModelEntry, Plugin, PluginAgentApi, PluginContext, PluginEntry } from './plugin.js'

export type { Tool, ToolContext, ToolResult, ToolResultObject, ToolReturn } from './tools/types.js'

export { Agent } from './loop/agent.js'
export type { CancelOptions, MaintenanceContext } from './loop/agent.js'
export type { SystemPrompt } from './loop/runtime.js'
export { createAgent } from './create-agent.js'
export type { CreateAgentOptions } from './create-agent.js'
export { awaitLiveAgent, borrowOrOpen, findLiveAgent, liveAgents, offerChildOpener, openThroughParent, whenAgentClosed, type ChildOpener } from './live-agents.js'

export { memoryStore } from './store/memory.js'
export { assertSessionId } from './store/session-id.js'
export type { NewSession, SessionSummary, SessionWriter, Store, StoredSession } from './store/types.js'
export { FIRST_PROMPT_MAX, LogSummaryFold, listedDelegation, summarizeLog, summaryFields } from './store/summary.js'
export type { LogSummary, LogSummaryPendingState, LogSummaryState } from './store/summary.js'
export { formatEvent, formatTimeline } from './session/timeline.js'
export type { TimelineOptions } from './session/timeline.js'
export { closeOpenTurn, SHUTDOWN_ABORT_REASON, TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from './store/repair.js'
export type { RepairReport } from './store/repair.js'
export { forkSeed, forkSession } from './store/fork.js'
export { removeSession } from './store/remove.js'
export type { ForkOptions } from './store/fork.js'
export { createStore, defineStore } from './store/define-store.js'
export type { StoreContext, StoreDefinition } from './store/define-store.js'
export {
  adapterOptionProblems, apiKeyEnvOptionSchema, badPortFailure, baseURLOptionSchema, CONTEXT_WINDOW_MESSAGE, DEFAULT_IDLE_TIMEOUT_MS, deadlineOptionsSchema,
  errorFromResponse, excerpt, fetchWithoutRedirects, headersOptionSchema, isContentChunk, maskSecret, MAX_ERROR_BODY_BYTES, MAX_JSON_BODY_BYTES,
  labelInSentence, MAX_PROVIDER_MESSAGE, MIN_MASKED_KEY_PREFIX, modelErrorFromResponse, parseDuration, providerMessage, readBodyText, redactSecret, retryAfterMs,
  serverLabel, shownBaseURL, withContentDeadline, withIdleTimeout,
} from './adapter-kit/index.js'
export type { Deadlines } from './adapter-kit/index.js'
// One reading of request.params.toolChoice / parallelToolCalls for every adapter.
export { requestParallelToolCalls, requestParamError, requestToolChoice } from './adapter-kit/index.js'
export type { RequestToolChoice } from './adapter-kit/index.js'
// What an HTTP 413 says to do, for an adapter that builds its own error (the ai-sdk bridge); and
// whether the request's maxTokens alone caused it (then INVALID_REQUEST, not a context window):
// maxTokensRefusal gives the code and the hint, the rule every adapter applies.
export { maxTokensOverLimit, maxTokensOverLimitHint, maxTokensRefusal, tooLargeHint } from './adapter-kit/index.js'
export type { MaxTokensOverLimit, ResponseErrorOptions, SentMaxTokens } from './adapter-kit/index.js'
// For text that may quote a key the caller does not know (an SDK's error): masks what looks like one.
export { maskCredentials } from './config/credentials.js'
// Masking by value: the secrets this process uses (the `…Env` variables a config names, the keys
// adapters read, a plugin's own), masked wherever text leaves (events, errors, the terminal).
export { isSecretEnvName, maskSecretValues, MIN_SECRET_LENGTH, registerSecret, registerSecretsFromEnv } from './config/secret-values.js'
