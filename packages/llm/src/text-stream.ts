/**
 * One LLM call answered in plain text, streamed: the model's chunks as it
 * writes them (langchain `.stream()`; a model without streaming yields its
 * whole answer once). Provider errors and aborts propagate, also mid-stream.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { messageText } from './message-text.js';
import { textTaskMessages } from './task-prompts.js';

export interface TextStreamOptions {
  model: BaseChatModel;
  instructions: string;
  /** The data to work on. */
  context: unknown;
  signal?: AbortSignal;
}

/** The answer's text, chunk by chunk (empty chunks left out). */
export async function* streamTextTask(options: TextStreamOptions): AsyncGenerator<string> {
  options.signal?.throwIfAborted();
  const stream = await options.model.stream(textTaskMessages(options.instructions, options.context), options.signal ? { signal: options.signal } : {});
  for await (const chunk of stream) {
    const text = messageText(chunk);
    if (text) yield text;
  }
}
