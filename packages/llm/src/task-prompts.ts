/**
 * The words we send with a structured task. Kept apart from the control flow
 * so tests (and a reviewer) can read exactly what the model is told.
 */
import { HumanMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import type { OutputViolation } from './llm-errors.js';
import { asPromptText } from './message-text.js';
import type { JsonSchema } from './output-schema.js';

/** System + user messages of the first attempt. */
export function structuredTaskMessages(instructions: string, context: unknown, schema: JsonSchema): BaseMessage[] {
  return [
    new SystemMessage(
      `${instructions.trim()}\n\n` +
        'Base your answer only on the context you are given. Answer with one JSON value that matches this JSON Schema ' +
        `(every required field present, no extra prose, no code fence):\n${JSON.stringify(schema, null, 2)}`,
    ),
    new HumanMessage(`Context:\n${asPromptText(context)}`),
  ];
}

/** A follow-up that shows the model its last answer and why it was rejected. */
export function repairMessage(previous: unknown, violations: OutputViolation[]): HumanMessage {
  const reasons = violations.map((v) => `- ${v.pointer || '/'}: ${v.message} (${v.keyword})`).join('\n');
  return new HumanMessage(
    `Your previous answer was:\n${asPromptText(previous)}\n\n` +
      `It does not match the output schema:\n${reasons}\n\n` +
      'Answer again with a corrected JSON value only.',
  );
}

/** Sent once the tool budget is spent: the next answer must be the final one. */
export function finalRoundMessage(maxRounds: number): HumanMessage {
  return new HumanMessage(
    `You have used all ${maxRounds} tool-calling round(s). Do not call any more tools: ` +
      'answer now from the information you have gathered.',
  );
}

/** The research instructions, with the answer format when an output schema is set. */
export function researchSystemPrompt(systemPrompt: string, schema: JsonSchema | undefined): string {
  const base = systemPrompt.trim() || 'Research the task using the tools you are given, then answer.';
  if (!schema) return base;
  return (
    `${base}\n\nWhen you have enough information, stop calling tools and answer with one JSON value ` +
    `that matches this JSON Schema (no prose, no code fence):\n${JSON.stringify(schema, null, 2)}`
  );
}

/** System + user messages of a task answered in plain text (streamed answers). */
export function textTaskMessages(instructions: string, context: unknown): BaseMessage[] {
  return [
    new SystemMessage(`${instructions.trim()}\n\nBase your answer only on the context you are given. Answer in plain text (Markdown allowed), not JSON.`),
    new HumanMessage(`Context:\n${asPromptText(context)}`),
  ];
}
