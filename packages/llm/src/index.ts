/**
 * `@af/llm` — chat models for llm nodes: a langchain provider factory chosen
 * by config, a scripted model for tests, structured output checked by Ajv
 * (with repair retries), and a bounded tool-calling loop. No model configured
 * means no model: callers fail clearly instead of inventing an answer.
 */
export type { BaseChatModel } from '@langchain/core/language_models/chat_models';
export { createChatModel, describeLlmConfig } from './chat-model.factory.js';
export {
  LLM_PROVIDERS,
  LlmConfigSchema,
  ScriptedResponseSchema,
  llmConfigFromEnv,
  llmEnvSchema,
  llmEnvShape,
  parseLlmConfig,
  type LlmConfig,
  type LlmConfigInput,
  type LlmEnv,
  type LlmProvider,
} from './llm-config.js';
export {
  LlmConfigError,
  LlmError,
  ScriptExhaustedError,
  StructuredOutputError,
  type LlmErrorCode,
  type OutputViolation,
} from './llm-errors.js';
export { checkTools, redactArgs, toProviderTool, type LlmTool, type ToolInvokeOptions } from './llm-tool.js';
export { messageText, parseJsonText, type JsonParse } from './message-text.js';
export {
  OutputFieldSchema,
  StepOutputSchemaSchema,
  isStepOutputSchema,
  outputSchemaToJsonSchema,
  toJsonSchema,
  type JsonSchema,
  type StepOutputSchema,
} from './output-schema.js';
export { compileOutputSchema, validateOutput, type ValidationResult } from './output-validator.js';
export { runResearchTask, type ResearchTaskOptions, type ResearchTaskResult } from './research-task.js';
export {
  ScriptedChatModel,
  type ScriptedCall,
  type ScriptedChatModelCallOptions,
  type ScriptedChatModelOptions,
  type ScriptedResponse,
  type ScriptedToolCall,
  type ScriptStep,
} from './scripted-chat-model.js';
export { runStructuredTask, type StructuredMode, type StructuredTaskOptions, type StructuredTaskResult } from './structured-task.js';
export { streamTextTask, type TextStreamOptions } from './text-stream.js';
export { runToolLoop, type ToolCallTrace, type ToolLoopOptions, type ToolLoopResult } from './tool-loop.js';
export {
  DEFAULT_EMBEDDING_MODELS,
  LangchainEmbedder,
  cosineSimilarity,
  createLangchainEmbedder,
  l2Normalise,
  type EmbeddingModelSettings,
  type EmbeddingProvider,
  type TextEmbedder,
} from './embeddings.js';
