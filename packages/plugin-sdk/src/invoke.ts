/**
 * One tool call, independent of the transport: find the tool, check the
 * caller's config and inputs, run the handler within its deadline (with an
 * AbortSignal it should pass on), check the output, and turn every failure
 * into a PluginError whose code is the gRPC status the caller gets.
 */
import type { PluginDefinition, PluginTool } from './define-plugin.js';
import { PluginError, type FieldViolation } from './errors.js';
import type { IdempotencyCache } from './idempotency.js';
import { describeViolations } from './json-schema.js';
import { configSecrets, maskingLogger, maskSecrets, type Logger } from './log.js';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const MAX_TIMEOUT_MS = 600_000;

export interface ToolCall {
  tool: string;
  inputs: Record<string, unknown> | undefined;
  config: Record<string, string>;
  idempotencyKey?: string;
  /** 0 or absent: DEFAULT_TIMEOUT_MS. Capped at MAX_TIMEOUT_MS. */
  timeoutMs?: number;
}

export interface InvokeDeps {
  log: Logger;
  idempotency: IdempotencyCache;
  /** The transport's cancellation (client went away, gRPC deadline). */
  signal?: AbortSignal;
}

export async function invokeTool(
  plugin: PluginDefinition,
  call: ToolCall,
  deps: InvokeDeps,
): Promise<Record<string, unknown>> {
  const tool = plugin.tools.get(call.tool);
  if (!tool) {
    throw new PluginError(
      'NOT_FOUND',
      `plugin ${plugin.name} has no tool "${call.tool}" (tools: ${[...plugin.tools.keys()].join(', ')})`,
    );
  }
  const missing: FieldViolation[] = plugin.requiredConfig
    .filter((key) => typeof call.config[key] !== 'string' || call.config[key] === '')
    .map((key) => ({ field: `config.${key}`, reason: `is required by plugin ${plugin.name}` }));
  if (missing.length > 0) {
    throw PluginError.failedPrecondition(
      `plugin ${plugin.name} is not configured: ${describeViolations(missing)}`,
      missing,
    );
  }
  const checked = tool.validateInput(call.inputs ?? {});
  if (!checked.ok) {
    throw new PluginError(
      'INVALID_ARGUMENT',
      `invalid inputs for tool ${tool.name}: ${describeViolations(checked.violations)}`,
      {
        violations: checked.violations,
      },
    );
  }
  const inputs = checked.value;
  const timeoutMs = Math.min(
    call.timeoutMs && call.timeoutMs > 0 ? call.timeoutMs : DEFAULT_TIMEOUT_MS,
    MAX_TIMEOUT_MS,
  );
  const secrets = configSecrets(call.config);
  const log = maskingLogger(deps.log, { tool: tool.name }, secrets);

  const controller = new AbortController();
  let stopReason: PluginError | undefined;
  const stop = (reason: PluginError) => {
    if (stopReason) return;
    stopReason = reason;
    controller.abort(reason);
  };
  const stopped = new Promise<never>((_, reject) =>
    controller.signal.addEventListener('abort', () => reject(stopReason), { once: true }),
  );
  stopped.catch(() => undefined);
  const timer = setTimeout(
    () =>
      stop(new PluginError('DEADLINE_EXCEEDED', `tool ${tool.name} did not finish within ${timeoutMs} ms`)),
    timeoutMs,
  );
  const onCancel = () => stop(new PluginError('CANCELLED', `the call of tool ${tool.name} was cancelled`));
  if (deps.signal?.aborted) onCancel();
  else deps.signal?.addEventListener('abort', onCancel, { once: true });

  const run = async () =>
    tool.handler(inputs, {
      config: Object.freeze({ ...call.config }),
      ...(call.idempotencyKey ? { idempotencyKey: call.idempotencyKey } : {}),
      signal: controller.signal,
      log,
      tool: tool.name,
    });
  const started = Date.now();
  try {
    if (stopReason) throw stopReason;
    const output =
      tool.sideEffecting && call.idempotencyKey
        ? await Promise.race([
            deps.idempotency.run(
              { tool: tool.name, key: call.idempotencyKey, config: call.config, inputs },
              run,
            ),
            stopped,
          ])
        : await Promise.race([run(), stopped]);
    const result = checkOutput(tool, output);
    deps.log.info({ tool: tool.name, ms: Date.now() - started }, 'tool call done');
    return result;
  } catch (err) {
    const failure = stopReason ?? toPluginError(err, tool.name, secrets);
    const level = failure.code === 'INTERNAL' ? 'error' : 'warn';
    deps.log[level](
      {
        tool: tool.name,
        code: failure.code,
        ms: Date.now() - started,
        ...(failure.code === 'INTERNAL' ? { err: maskSecrets(err, secrets) } : {}),
      },
      'tool call failed',
    );
    throw failure;
  } finally {
    clearTimeout(timer);
    deps.signal?.removeEventListener('abort', onCancel);
  }
}

/** Outputs travel as JSON: normalise (dates become strings, undefined goes) and check against the contract. */
function checkOutput(tool: PluginTool, output: unknown): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(JSON.stringify(output ?? null));
  } catch {
    throw new PluginError('INTERNAL', `tool ${tool.name} returned a value that is not JSON`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new PluginError(
      'INTERNAL',
      `tool ${tool.name} must return an object, got ${json === null ? 'null' : Array.isArray(json) ? 'a list' : typeof json}`,
    );
  }
  const checked = tool.validateOutput(json as Record<string, unknown>);
  if (!checked.ok) {
    throw new PluginError(
      'INTERNAL',
      `tool ${tool.name} returned output that breaks its output schema: ${describeViolations(checked.violations)}`,
      {
        violations: checked.violations,
      },
    );
  }
  return checked.value;
}

/**
 * A handler's error → PluginError. PluginErrors keep their code; anything else
 * is INTERNAL with a generic message (its own message may hold upstream detail
 * the caller should not see; it is logged, masked, instead).
 */
function toPluginError(err: unknown, tool: string, secrets: readonly string[]): PluginError {
  if (err instanceof PluginError) {
    if (secrets.length === 0) return err;
    const message = maskSecrets(err.message, secrets);
    const violations = maskSecrets(err.violations, secrets);
    return new PluginError(err.code, message, {
      violations,
      retryable: err.retryable,
      ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
    });
  }
  return new PluginError('INTERNAL', `tool ${tool} failed unexpectedly`, { cause: err });
}
