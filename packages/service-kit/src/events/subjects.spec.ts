import { matches, Subjects } from './subjects.js';

describe('subjects', () => {
  it('builds the seed subjects, optionally prefixed', () => {
    expect(new Subjects().run('r1', 'node_start')).toBe('af.run.r1.node_start');
    const s = new Subjects('t1');
    expect(s.run('r1', 'complete')).toBe('t1.af.run.r1.complete');
    expect(s.runAll('r1')).toBe('t1.af.run.r1.>');
    expect(s.streams().map((x) => x.name)).toEqual(['T1_AF_EVENTS', 'T1_AF_WORK']);
    expect(s.streamFor('t1.af.work.run.r1').kind).toBe('workqueue');
    expect(() => s.streamFor('other.subject')).toThrow('no stream holds subject');
  });

  it.each([
    ['af.run.>', 'af.run.r1.start', true],
    ['af.run.>', 'af.run', false],
    ['af.run.*.start', 'af.run.r1.start', true],
    ['af.run.*.start', 'af.run.r1.complete', false],
    ['af.run.r1.start', 'af.run.r1.start', true],
    ['af.run.r1', 'af.run.r1.start', false],
  ])('%s matches %s: %s', (filter, subject, expected) => {
    expect(matches(filter, subject)).toBe(expected);
  });
});
