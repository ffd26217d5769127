/**
 * Typed failures of the LLM layer. Services map them onto their own error type
 * (the orchestrator turns them into `AppError`s); this package stays free of
 * service code so a plugin or a script can use it too.
 */

/** One reason an output does not match its schema. */
export interface OutputViolation {
  /** JSON Pointer of the offending value (`/results/0/title`; `''` is the whole output). */
  pointer: string;
  /** The JSON Schema keyword that failed (`required`, `type`, …), or `json` when the text was not JSON. */
  keyword: string;
  message: string;
}

export type LlmErrorCode =
  | 'config_invalid'
  | 'schema_invalid'
  | 'output_invalid'
  | 'script_exhausted'
  | 'tools_unsupported'
  | 'tool_invalid'
  | 'no_final_answer';

export class LlmError extends Error {
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LlmError';
  }
}

/** Configuration that cannot build a model; `problems` name the field (or env variable) and why. */
export class LlmConfigError extends LlmError {
  constructor(readonly problems: Array<{ field: string; reason: string }>) {
    super('config_invalid', `invalid LLM configuration: ${problems.map((p) => `${p.field}: ${p.reason}`).join('; ')}`);
    this.name = 'LlmConfigError';
  }
}

/** The model's answer never matched the schema within the allowed attempts. */
export class StructuredOutputError extends LlmError {
  constructor(
    readonly violations: OutputViolation[],
    readonly attempts: number,
    /** The last answer (parsed value, or the raw text when it was not JSON), for diagnosis. */
    readonly lastOutput: unknown,
  ) {
    super(
      'output_invalid',
      `the model's output did not match the output schema after ${attempts} attempt(s): ${violations
        .slice(0, 5)
        .map((v) => `${v.pointer || '/'} ${v.message}`)
        .join('; ')}${violations.length > 5 ? ` (+${violations.length - 5} more)` : ''}`,
    );
    this.name = 'StructuredOutputError';
  }
}

/** A ScriptedChatModel was called more times than its script has answers. */
export class ScriptExhaustedError extends LlmError {
  constructor(
    readonly callNumber: number,
    readonly scriptLength: number,
  ) {
    super(
      'script_exhausted',
      `ScriptedChatModel: call ${callNumber} has no scripted response (the script has ${scriptLength}); add a response instead of letting the model invent one`,
    );
    this.name = 'ScriptExhaustedError';
  }
}
