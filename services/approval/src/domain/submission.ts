/**
 * What a person hands in: a human task's output, checked against the task's
 * output schema with Ajv (flex spec §15.3: "validates against the node's
 * outputContract"); a clarification answer; a decline reason.
 */
import { validateOutput, type JsonSchema } from '@af/llm';
import { AppError, type FieldViolation } from '@af/service-kit';
import { DECLINE_REASONS, type DeclineReason } from './request.js';

export const MAX_ANSWER_CHARS = 10_000;
export const MAX_OUTPUT_BYTES = 1024 * 1024;

/** `/a/b~1c/0` → `output.a["b/c"][0]`-like dotted path: `output.a.b/c[0]`. */
export function pointerToField(pointer: string, root = 'output'): string {
  if (!pointer) return root;
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : `${acc}.${seg}`), root);
}

/** The submitted output text parsed and checked; throws INVALID_ARGUMENT naming each failing field. */
export function parseSubmission(outputJson: string, schema: Record<string, unknown>): unknown {
  if (!outputJson.trim()) throw AppError.invalid('output', 'is required: the task output as JSON');
  if (Buffer.byteLength(outputJson) > MAX_OUTPUT_BYTES) throw AppError.invalid('output', `is larger than ${MAX_OUTPUT_BYTES} bytes`);
  let output: unknown;
  try {
    output = JSON.parse(outputJson);
  } catch (err) {
    throw AppError.invalid('output', `is not valid JSON (${(err as Error).message})`);
  }
  const result = validateOutput(schema as JsonSchema, output);
  if (!result.ok) {
    const violations: FieldViolation[] = result.violations.map((x) => ({ field: pointerToField(x.pointer), reason: x.message, code: x.keyword }));
    throw new AppError('INVALID_ARGUMENT', `the output does not satisfy the task's output schema: ${violations.map((x) => `${x.field} ${x.reason}`).join('; ')}`, {
      violations,
    });
  }
  return output;
}

export function parseAnswer(answer: string): string {
  const text = answer.trim();
  if (!text) throw AppError.invalid('answer', 'is required: the answer to the question');
  if (text.length > MAX_ANSWER_CHARS) throw AppError.invalid('answer', `is longer than ${MAX_ANSWER_CHARS} characters`);
  return text;
}

export function parseDecline(reasonCode: string, reason: string): { reasonCode: DeclineReason; reason: string } {
  if (!(DECLINE_REASONS as readonly string[]).includes(reasonCode)) {
    throw AppError.invalid('reason_code', `must be one of ${DECLINE_REASONS.join(', ')}`);
  }
  if (reason.length > MAX_ANSWER_CHARS) throw AppError.invalid('reason', `is longer than ${MAX_ANSWER_CHARS} characters`);
  return { reasonCode: reasonCode as DeclineReason, reason: reason.trim() };
}

/** A reject's reason (stored as the resolution's `reason`); an approve takes none. */
export function parseRejectReason(decision: 'approve' | 'reject', reason: string): string {
  if (reason.length > MAX_ANSWER_CHARS) throw AppError.invalid('reason', `is longer than ${MAX_ANSWER_CHARS} characters`);
  if (reason.trim() && decision !== 'reject') throw AppError.invalid('reason', 'is only for a reject: an approve takes instructions');
  return reason.trim();
}

export function parseInstructions(instructions: string): string {
  if (instructions.length > MAX_ANSWER_CHARS) throw AppError.invalid('instructions', `is longer than ${MAX_ANSWER_CHARS} characters`);
  return instructions.trim();
}
