import { AIMessage } from '@langchain/core/messages';
import { asPromptText, messageText, parseJsonText } from './message-text.js';

describe('messageText', () => {
  it('reads string content and joins text blocks', () => {
    expect(messageText(new AIMessage('plain'))).toBe('plain');
    const blocks = new AIMessage({ content: [{ type: 'text', text: 'a' }, { type: 'tool_use', id: 'x', name: 't', input: {} } as never, { type: 'text', text: 'b' }] });
    expect(messageText(blocks)).toBe('ab');
  });
});

describe('parseJsonText', () => {
  it('parses plain JSON, fenced JSON and JSON inside a sentence', () => {
    expect(parseJsonText('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonText('Here you go:\n```json\n{"a": [1, 2]}\n```\nDone.')).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(parseJsonText('The answer is {"a": true} as requested')).toEqual({ ok: true, value: { a: true } });
    expect(parseJsonText('  [1, 2] ')).toEqual({ ok: true, value: [1, 2] });
    expect(parseJsonText('"just a string"')).toEqual({ ok: true, value: 'just a string' });
  });

  it('reports text without JSON instead of guessing', () => {
    const r = parseJsonText('I could not find anything.');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/^the answer was not valid JSON \(/);
    expect(parseJsonText('   ')).toEqual({ ok: false, reason: 'the answer was empty' });
    expect(parseJsonText('{"a": 1').ok).toBe(false);
  });
});

describe('asPromptText', () => {
  it('keeps strings and indents everything else as JSON', () => {
    expect(asPromptText('hi')).toBe('hi');
    expect(asPromptText({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(asPromptText(undefined)).toBe('null');
  });
});
