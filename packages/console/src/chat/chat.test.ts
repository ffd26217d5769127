import { describe, expect, it } from 'vitest';
import { applyMention, matchAgents, mentionAt } from './mention';
import { parseSse } from './sse-post';

const agents = [
  { agent_profile_id: '1', handle: 'sorter', name: 'Sorter', source: 'own' },
  { agent_profile_id: '2', handle: 'nonprofit-investigator', name: 'Nonprofit investigator', source: 'team', team_name: 'Research' },
  { agent_profile_id: '3', handle: 'researcher', name: 'Sort-of research', source: 'own' },
];

describe('@mention autocomplete', () => {
  it('finds the mention the caret is in, only after a space or at the start', () => {
    expect(mentionAt('@so', 3)).toEqual({ start: 0, query: 'so' });
    expect(mentionAt('ask @non about', 8)).toEqual({ start: 4, query: 'non' });
    expect(mentionAt('ask @', 5)).toEqual({ start: 4, query: '' });
    expect(mentionAt('mail me@host', 12)).toBeNull();
    expect(mentionAt('@sorter sort it', 15)).toBeNull();
  });

  it('ranks handles that start with the query before those that contain it (handle or name)', () => {
    expect(matchAgents(agents, 'so').map((a) => a.handle)).toEqual(['sorter', 'researcher']);
    expect(matchAgents(agents, '').map((a) => a.handle)).toEqual(['sorter', 'nonprofit-investigator', 'researcher']);
    expect(matchAgents(agents, 'zzz')).toEqual([]);
  });

  it('replaces the typed part of the mention with the handle and a space', () => {
    expect(applyMention('@so', 0, 3, 'sorter')).toEqual({ text: '@sorter ', caret: 8 });
    expect(applyMention('ask @no please', 4, 7, 'nonprofit-investigator')).toEqual({ text: 'ask @nonprofit-investigator please', caret: 28 });
  });
});

describe('SSE over POST', () => {
  it('cuts frames, keeps an unfinished one for the next chunk, skips comments and joins data lines', () => {
    const first = parseSse('event: strategy\ndata: {"a":1}\n\n: keep-alive\n\nevent: run\nid: 4\ndata: {"b"');
    expect(first.messages).toEqual([{ event: 'strategy', data: '{"a":1}' }]);
    const second = parseSse(`${first.rest}:2}\n\nevent: answer\r\ndata: line 1\r\ndata: line 2\r\n\r\n`);
    expect(second.messages).toEqual([
      { event: 'run', id: '4', data: '{"b":2}' },
      { event: 'answer', data: 'line 1\nline 2' },
    ]);
    expect(second.rest).toBe('');
  });
});
