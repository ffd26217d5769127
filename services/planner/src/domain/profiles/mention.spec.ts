import { closeHandles, parseMention, resolveHandle, unknownHandleMessage, type MentionCandidate } from './mention.js';

describe('parseMention', () => {
  it.each([
    ['@nonprofit-investigator Investigate the Omidyar Foundation', 'nonprofit-investigator', 'Investigate the Omidyar Foundation'],
    ['  @agent_1: what changed?', 'agent_1', 'what changed?'],
    ['@agent, hi', 'agent', 'hi'],
    ['@Agent hello', 'agent', 'hello'],
    ['@agent', 'agent', ''],
    ['@agent\n\nline two', 'agent', 'line two'],
  ])('%j mentions %s', (message, handle, query) => {
    expect(parseMention(message)).toEqual({ mentioned: true, handle, query });
  });

  it.each([
    'mail me at a@b.org',
    'hello @agent',
    '@ agent hi',
    '@',
    '',
    '@-agent hi',
    '@agent.x hi',
    '@agent!hi',
    `@${'a'.repeat(101)} hi`,
  ])('%j mentions nobody', (message) => {
    expect(parseMention(message)).toEqual({ mentioned: false, query: message.trim() });
  });
});

const own = (handle: string, id = `own-${handle}`): MentionCandidate => ({ profileId: id, handle, source: 'own' });
const team = (handle: string, id: string, teamId: string, sharedAt: number): MentionCandidate => ({ profileId: id, handle, source: 'team', teamId, sharedAt });

describe('resolveHandle', () => {
  const candidates = [team('tracker', 'shared-late', 't2', 20), team('tracker', 'shared-early', 't1', 10), own('tracker'), own('corp'), team('money', 'm1', 't1', 5)];

  it('takes the caller’s own agent first', () => {
    expect(resolveHandle('tracker', candidates)).toEqual({ found: true, candidate: own('tracker') });
  });

  it('then an agent shared with one of their teams, the earliest share first', () => {
    const shared = candidates.filter((c) => c.source === 'team');
    expect(resolveHandle('tracker', shared)).toEqual({ found: true, candidate: team('tracker', 'shared-early', 't1', 10) });
    expect(resolveHandle('money', candidates)).toMatchObject({ found: true, candidate: { profileId: 'm1', source: 'team', teamId: 't1' } });
  });

  it('accepts a leading @ and capitals', () => {
    expect(resolveHandle('@Corp', candidates)).toMatchObject({ found: true, candidate: { profileId: 'own-corp' } });
  });

  it('an unknown handle lists the close ones', () => {
    expect(resolveHandle('traker', candidates)).toEqual({ found: false, close: ['tracker'] });
    expect(resolveHandle('zzzzzzzz', candidates)).toEqual({ found: false, close: [] });
    expect(resolveHandle('x', [])).toEqual({ found: false, close: [] });
  });
});

describe('closeHandles', () => {
  const handles = ['nonprofit-investigator', 'nonprofit-investigator-2', 'political-finance-tracker', 'corp', 'corporate-intelligence-analyst'];

  it('orders by distance, then name, and caps the list', () => {
    expect(closeHandles('nonprofit-investigatr', handles)).toEqual(['nonprofit-investigator', 'nonprofit-investigator-2']);
    expect(closeHandles('cor', handles)).toEqual(['corp', 'corporate-intelligence-analyst']);
    expect(closeHandles('corporate', handles)).toEqual(['corp', 'corporate-intelligence-analyst']);
    expect(closeHandles('a', ['b', 'c', 'd', 'e', 'f', 'g'])).toEqual(['b', 'c', 'd', 'e', 'f']);
    expect(closeHandles('a', ['b', 'c'], 1)).toEqual(['b']);
  });

  it('never lists the handle itself or far ones', () => {
    expect(closeHandles('corp', ['corp', 'corp'])).toEqual([]);
    expect(closeHandles('political', handles)).toEqual(['political-finance-tracker']);
    expect(closeHandles('xyzxyzxyz', handles)).toEqual([]);
  });

  it('the message names them, or where to look', () => {
    expect(unknownHandleMessage('traker', ['tracker', 'tracer'])).toBe("no agent '@traker' for you; did you mean @tracker, @tracer?");
    expect(unknownHandleMessage('x', [])).toMatch(/available-agents/);
  });
});
