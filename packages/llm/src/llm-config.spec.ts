import { z } from 'zod';
import { llmConfigFromEnv, llmEnvShape, parseLlmConfig } from './llm-config.js';
import { LlmConfigError } from './llm-errors.js';

function problems(fn: () => unknown): Array<{ field: string; reason: string }> {
  try {
    fn();
  } catch (err) {
    if (err instanceof LlmConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected an LlmConfigError');
}

describe('parseLlmConfig', () => {
  it('defaults to provider none', () => {
    expect(parseLlmConfig({})).toEqual({ provider: 'none' });
  });

  it('accepts a full openai config', () => {
    const c = { provider: 'openai', model: 'gpt-4o-mini', apiKey: 'sk-test', baseUrl: 'http://localhost:8000/v1', temperature: 0, maxTokens: 512, timeoutMs: 30_000, maxRetries: 1 };
    expect(parseLlmConfig(c)).toEqual(c);
  });

  it('requires a model for openai, anthropic and ollama, and a key for openai and anthropic', () => {
    expect(problems(() => parseLlmConfig({ provider: 'openai' }))).toEqual([
      { field: 'model', reason: "is required for provider 'openai'" },
      { field: 'apiKey', reason: "is required for provider 'openai'" },
    ]);
    expect(problems(() => parseLlmConfig({ provider: 'anthropic', model: 'claude' }))).toEqual([{ field: 'apiKey', reason: "is required for provider 'anthropic'" }]);
    expect(problems(() => parseLlmConfig({ provider: 'ollama' }))).toEqual([{ field: 'model', reason: "is required for provider 'ollama'" }]);
    expect(parseLlmConfig({ provider: 'ollama', model: 'llama3.1' })).toEqual({ provider: 'ollama', model: 'llama3.1' });
  });

  it('requires a script for the scripted provider and checks its entries', () => {
    expect(problems(() => parseLlmConfig({ provider: 'scripted' }))[0]!.field).toBe('script');
    expect(problems(() => parseLlmConfig({ provider: 'scripted', script: ['ok', { jsn: 1 }] }))[0]!.field).toBe('script[1]');
    expect(parseLlmConfig({ provider: 'scripted', script: ['ok', { json: { a: 1 } }, { toolCalls: [{ name: 't', args: {} }] }] }).script).toHaveLength(3);
  });

  it('names bad fields: unknown provider, bad URL, out-of-range numbers, unknown keys', () => {
    expect(problems(() => parseLlmConfig({ provider: 'gemini' }))[0]!.field).toBe('provider');
    expect(problems(() => parseLlmConfig({ provider: 'none', baseUrl: 'ftp://x' }))).toEqual([{ field: 'baseUrl', reason: 'must be an http(s) URL' }]);
    expect(problems(() => parseLlmConfig({ temperature: 3 }))[0]!.field).toBe('temperature');
    expect(problems(() => parseLlmConfig({ maxTokens: 0 }))[0]!.field).toBe('maxTokens');
    expect(problems(() => parseLlmConfig({ api_key: 'x' }))[0]!.reason).toMatch(/api_key/);
  });

  it('never echoes the API key in its message', () => {
    try {
      parseLlmConfig({ provider: 'openai', apiKey: 'sk-very-secret', temperature: 9 });
    } catch (err) {
      expect((err as Error).message).not.toContain('sk-very-secret');
      expect((err as Error).message).toContain('model');
    }
  });
});

describe('llmConfigFromEnv', () => {
  it('unset or empty variables mean provider none', () => {
    expect(llmConfigFromEnv({})).toEqual({ provider: 'none' });
    expect(llmConfigFromEnv({ LLM_PROVIDER: '', LLM_MODEL: '' })).toEqual({ provider: 'none' });
  });

  it('maps the variables, coercing numbers', () => {
    expect(
      llmConfigFromEnv({ LLM_PROVIDER: 'ollama', LLM_MODEL: 'llama3.1', LLM_BASE_URL: 'http://ollama:11434', LLM_TEMPERATURE: '0.2', LLM_TIMEOUT_MS: '5000' }),
    ).toEqual({ provider: 'ollama', model: 'llama3.1', baseUrl: 'http://ollama:11434', temperature: 0.2, timeoutMs: 5000 });
  });

  it('names the variable in every problem', () => {
    expect(problems(() => llmConfigFromEnv({ LLM_PROVIDER: 'openai' }))).toEqual([
      { field: 'LLM_MODEL', reason: "is required for provider 'openai'" },
      { field: 'LLM_API_KEY', reason: "is required for provider 'openai'" },
    ]);
    expect(problems(() => llmConfigFromEnv({ LLM_PROVIDER: 'bard' }))[0]!.field).toBe('LLM_PROVIDER');
    expect(problems(() => llmConfigFromEnv({ LLM_TEMPERATURE: 'warm' }))[0]!.field).toBe('LLM_TEMPERATURE');
    expect(problems(() => llmConfigFromEnv({ LLM_PROVIDER: 'scripted' }))[0]!.field).toBe('LLM_SCRIPT');
  });

  it('parses LLM_SCRIPT as JSON and reports bad JSON or bad entries by variable', () => {
    expect(llmConfigFromEnv({ LLM_PROVIDER: 'scripted', LLM_SCRIPT: '["hi", {"json": {"a": 1}}]' }).script).toEqual(['hi', { json: { a: 1 } }]);
    expect(problems(() => llmConfigFromEnv({ LLM_PROVIDER: 'scripted', LLM_SCRIPT: '[oops' }))[0]).toMatchObject({ field: 'LLM_SCRIPT', reason: expect.stringMatching(/^is not valid JSON/) });
    expect(problems(() => llmConfigFromEnv({ LLM_PROVIDER: 'scripted', LLM_SCRIPT: '{"text": "x"}' }))[0]!.field).toBe('LLM_SCRIPT');
    expect(problems(() => llmConfigFromEnv({ LLM_PROVIDER: 'scripted', LLM_SCRIPT: '[{"toolCalls": []}]' }))[0]!.field).toBe('LLM_SCRIPT[0].toolCalls');
  });

  it('accepts values a service env schema extended with llmEnvShape already parsed', () => {
    const serviceEnv = z.object({ PORT: z.coerce.number().default(1) }).extend(llmEnvShape);
    const parsed = serviceEnv.parse({ LLM_PROVIDER: 'anthropic', LLM_MODEL: 'claude-sonnet-4-5', LLM_API_KEY: 'k', LLM_MAX_TOKENS: '1024' });
    expect(parsed.LLM_MAX_TOKENS).toBe(1024);
    expect(llmConfigFromEnv(parsed)).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5', apiKey: 'k', maxTokens: 1024 });
  });
});
