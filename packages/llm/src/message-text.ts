/**
 * Reading a chat model's answer: its text (providers return a string or a list
 * of content blocks) and the JSON value inside that text (models like to wrap
 * JSON in a ```json fence or a sentence).
 */
import type { BaseMessage } from '@langchain/core/messages';

/** The text of a message, joining text blocks when the content is a list. */
export function messageText(message: BaseMessage): string {
  const content = message.content as unknown;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: unknown) => {
      if (typeof block === 'string') return block;
      if (block && typeof block === 'object' && (block as { type?: unknown }).type === 'text') return String((block as { text?: unknown }).text ?? '');
      return '';
    })
    .join('');
}

export type JsonParse = { ok: true; value: unknown } | { ok: false; reason: string };

const FENCE = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/;

/**
 * The JSON value in a model's text: the whole text, else the first fenced
 * block, else the span from the first `{`/`[` to the matching last `}`/`]`.
 * Never guesses beyond that — a text without JSON is reported, not repaired.
 */
export function parseJsonText(text: string): JsonParse {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, reason: 'the answer was empty' };
  const candidates = [trimmed];
  const fenced = FENCE.exec(trimmed);
  if (fenced?.[1]) candidates.push(fenced[1].trim());
  for (const [open, close] of [
    ['{', '}'],
    ['[', ']'],
  ] as const) {
    const start = trimmed.indexOf(open);
    const end = trimmed.lastIndexOf(close);
    if (start >= 0 && end > start) candidates.push(trimmed.slice(start, end + 1));
  }
  let firstError = '';
  for (const candidate of candidates) {
    try {
      return { ok: true, value: JSON.parse(candidate) as unknown };
    } catch (err) {
      firstError ||= (err as Error).message;
    }
  }
  return { ok: false, reason: `the answer was not valid JSON (${firstError})` };
}

/** A value as prompt text: strings as they are, everything else as indented JSON. */
export function asPromptText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2) ?? 'null';
}
