/**
 * Config → langchain chat model. Provider SDKs are imported only when chosen,
 * so a service without a model (the default) never loads them.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { parseLlmConfig, type LlmConfig, type LlmConfigInput } from './llm-config.js';
import { ScriptedChatModel, type ScriptedResponse } from './scripted-chat-model.js';

const DEFAULT_OLLAMA_URL = 'http://127.0.0.1:11434';
const DEFAULT_MAX_RETRIES = 2;

/**
 * The chat model a config describes, or `undefined` for provider `none`
 * (callers then fail with their own "no LLM is configured" error rather than
 * inventing an answer). Throws `LlmConfigError` naming the bad field.
 */
export async function createChatModel(input: LlmConfigInput | LlmConfig): Promise<BaseChatModel | undefined> {
  const config = parseLlmConfig(input);
  const maxRetries = config.maxRetries ?? DEFAULT_MAX_RETRIES;
  switch (config.provider) {
    case 'none':
      return undefined;
    case 'scripted':
      return new ScriptedChatModel({ responses: (config.script ?? []) as ScriptedResponse[] });
    case 'openai': {
      const { ChatOpenAI } = await import('@langchain/openai');
      return new ChatOpenAI({
        model: config.model!,
        apiKey: config.apiKey!,
        maxRetries,
        ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
        ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
        ...(config.timeoutMs !== undefined ? { timeout: config.timeoutMs } : {}),
        ...(config.baseUrl !== undefined ? { configuration: { baseURL: config.baseUrl } } : {}),
      });
    }
    case 'anthropic': {
      const { ChatAnthropic } = await import('@langchain/anthropic');
      return new ChatAnthropic({
        model: config.model!,
        apiKey: config.apiKey!,
        maxRetries,
        ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
        ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
        ...(config.baseUrl !== undefined ? { anthropicApiUrl: config.baseUrl } : {}),
        ...(config.timeoutMs !== undefined ? { clientOptions: { timeout: config.timeoutMs } } : {}),
      });
    }
    case 'ollama': {
      const { ChatOllama } = await import('@langchain/ollama');
      return new ChatOllama({
        model: config.model!,
        baseUrl: config.baseUrl ?? DEFAULT_OLLAMA_URL,
        maxRetries,
        ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
        ...(config.maxTokens !== undefined ? { numPredict: config.maxTokens } : {}),
      });
    }
  }
}

/** A short description of the configured model for logs — never the key. */
export function describeLlmConfig(config: LlmConfig): string {
  if (config.provider === 'none') return 'none';
  if (config.provider === 'scripted') return `scripted (${config.script?.length ?? 0} responses)`;
  return `${config.provider}:${config.model}${config.baseUrl ? ` @ ${safeUrl(config.baseUrl)}` : ''}`;
}

/** A URL without user info or query (either may carry a credential). */
function safeUrl(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname === '/' ? '' : u.pathname}`;
}
