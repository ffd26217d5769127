/**
 * Which chat model a service uses, as data: the typed form `createChatModel`
 * takes and the environment form (`LLM_*` variables) a service adds to its own
 * env schema. Both are parsed with zod; a problem names the field, or the
 * variable when it came from the environment. Values are never echoed (the API
 * key is a secret).
 */
import { z } from 'zod';
import { LlmConfigError } from './llm-errors.js';

export const LLM_PROVIDERS = ['openai', 'anthropic', 'ollama', 'scripted', 'none'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

const httpUrl = z.string().refine((v) => {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}, 'must be an http(s) URL');

/** A scripted answer in configuration form (see `ScriptedResponse`). */
export const ScriptedResponseSchema = z.union([
  z.string(),
  z.strictObject({ text: z.string() }),
  z.strictObject({ json: z.unknown() }),
  z.strictObject({
    toolCalls: z.array(z.strictObject({ name: z.string().min(1), args: z.record(z.string(), z.unknown()), id: z.string().optional() })).min(1),
    text: z.string().optional(),
  }),
  z.strictObject({ error: z.string() }),
  z.strictObject({ chunks: z.array(z.string()).min(1), error: z.string().optional() }),
]);

const NEEDS_MODEL: ReadonlySet<LlmProvider> = new Set(['openai', 'anthropic', 'ollama']);
const NEEDS_KEY: ReadonlySet<LlmProvider> = new Set(['openai', 'anthropic']);

export const LlmConfigSchema = z
  .strictObject({
    /** `none` (the default) means no model: llm nodes fail with a clear error. */
    provider: z.enum(LLM_PROVIDERS).default('none'),
    /** Provider model name, e.g. `gpt-4o-mini`, `claude-sonnet-4-5`, `llama3.1`. */
    model: z.string().min(1).optional(),
    /** openai / anthropic API key. */
    apiKey: z.string().min(1).optional(),
    /** Server URL: an OpenAI-compatible endpoint, an Anthropic proxy, or Ollama (default http://127.0.0.1:11434). */
    baseUrl: httpUrl.optional(),
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: z.number().int().positive().optional(),
    /** Per-request timeout the provider client applies. */
    timeoutMs: z.number().int().positive().optional(),
    /** Provider-client retries of transient HTTP failures (default 2). */
    maxRetries: z.number().int().min(0).max(10).optional(),
    /** The answers of the `scripted` provider (end-to-end tests). */
    script: z.array(ScriptedResponseSchema).optional(),
  })
  .superRefine((c, ctx) => {
    if (NEEDS_MODEL.has(c.provider) && c.model === undefined) {
      ctx.addIssue({ code: 'custom', path: ['model'], message: `is required for provider '${c.provider}'` });
    }
    if (NEEDS_KEY.has(c.provider) && c.apiKey === undefined) {
      ctx.addIssue({ code: 'custom', path: ['apiKey'], message: `is required for provider '${c.provider}'` });
    }
    if (c.provider === 'scripted' && c.script === undefined) {
      ctx.addIssue({ code: 'custom', path: ['script'], message: "is required for provider 'scripted' (a JSON array of responses)" });
    }
  });
export type LlmConfigInput = z.input<typeof LlmConfigSchema>;
export type LlmConfig = z.output<typeof LlmConfigSchema>;

function problemsOf(error: z.ZodError, rename: (field: string) => string = (f) => f): Array<{ field: string; reason: string }> {
  return error.issues.map((issue) => {
    const [top, ...rest] = issue.path;
    const field =
      top === undefined ? '(config)' : rename(String(top)) + rest.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    const reason = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
    return { field, reason };
  });
}

/** Parses a typed config; throws `LlmConfigError` naming each bad field. */
export function parseLlmConfig(input: unknown): LlmConfig {
  const parsed = LlmConfigSchema.safeParse(input);
  if (!parsed.success) throw new LlmConfigError(problemsOf(parsed.error));
  return parsed.data;
}

/**
 * The `LLM_*` variables, as a zod shape a service spreads into its env schema
 * (`baseEnvSchema.extend(llmEnvShape)`). Cross-field rules (a model for
 * openai, …) are checked by `llmConfigFromEnv`, which names the variable.
 */
export const llmEnvShape = {
  /** openai | anthropic | ollama | scripted | none (default: none — llm nodes fail with a clear error). */
  LLM_PROVIDER: z.enum(LLM_PROVIDERS).default('none'),
  /** Model name; required for openai, anthropic and ollama. */
  LLM_MODEL: z.string().min(1).optional(),
  /** API key; required for openai and anthropic. */
  LLM_API_KEY: z.string().min(1).optional(),
  /** Provider URL (OpenAI-compatible server, Anthropic proxy, or Ollama). */
  LLM_BASE_URL: httpUrl.optional(),
  LLM_TEMPERATURE: z.coerce.number().min(0).max(2).optional(),
  LLM_MAX_TOKENS: z.coerce.number().int().positive().optional(),
  LLM_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(10).optional(),
  /** JSON array of scripted responses for LLM_PROVIDER=scripted (end-to-end tests). */
  LLM_SCRIPT: z.string().min(1).optional(),
};
export const llmEnvSchema = z.object(llmEnvShape);
export type LlmEnv = z.output<typeof llmEnvSchema>;

const ENV_NAMES: Record<string, keyof typeof llmEnvShape> = {
  provider: 'LLM_PROVIDER',
  model: 'LLM_MODEL',
  apiKey: 'LLM_API_KEY',
  baseUrl: 'LLM_BASE_URL',
  temperature: 'LLM_TEMPERATURE',
  maxTokens: 'LLM_MAX_TOKENS',
  timeoutMs: 'LLM_TIMEOUT_MS',
  maxRetries: 'LLM_MAX_RETRIES',
  script: 'LLM_SCRIPT',
};

/**
 * The typed config from `LLM_*` variables — raw (`process.env`, empty strings
 * read as unset) or already parsed by a service's env schema. Throws
 * `LlmConfigError` whose fields are the variable names.
 */
export function llmConfigFromEnv(env: Record<string, unknown>): LlmConfig {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(llmEnvShape)) raw[key] = env[key] === '' ? undefined : env[key];
  const parsedEnv = llmEnvSchema.safeParse(raw);
  if (!parsedEnv.success) throw new LlmConfigError(problemsOf(parsedEnv.error));
  const e = parsedEnv.data;
  let script: unknown;
  if (e.LLM_SCRIPT !== undefined) {
    try {
      script = JSON.parse(e.LLM_SCRIPT);
    } catch (err) {
      throw new LlmConfigError([{ field: 'LLM_SCRIPT', reason: `is not valid JSON (${(err as Error).message})` }]);
    }
  }
  const config = Object.fromEntries(
    Object.entries({
      provider: e.LLM_PROVIDER,
      model: e.LLM_MODEL,
      apiKey: e.LLM_API_KEY,
      baseUrl: e.LLM_BASE_URL,
      temperature: e.LLM_TEMPERATURE,
      maxTokens: e.LLM_MAX_TOKENS,
      timeoutMs: e.LLM_TIMEOUT_MS,
      maxRetries: e.LLM_MAX_RETRIES,
      script,
    }).filter(([, v]) => v !== undefined),
  );
  const parsed = LlmConfigSchema.safeParse(config);
  if (!parsed.success) throw new LlmConfigError(problemsOf(parsed.error, (f) => ENV_NAMES[f] ?? f));
  return parsed.data;
}
