import { FrameSequencer, parseLastEventId } from './frame-sequencer.js';

const f = (seq: number, type = 'log') => ({ seq, type });

describe('FrameSequencer', () => {
  it('passes frames through in order', () => {
    const s = new FrameSequencer(0);
    expect(s.accept(f(1)).map((x) => x.seq)).toEqual([1]);
    expect(s.accept(f(2)).map((x) => x.seq)).toEqual([2]);
    expect(s.last).toBe(2);
  });

  it('holds frames behind a gap and releases them in order', () => {
    const s = new FrameSequencer(0);
    expect(s.accept(f(2))).toEqual([]);
    expect(s.accept(f(3))).toEqual([]);
    expect(s.hasGap()).toBe(true);
    expect(s.accept(f(1)).map((x) => x.seq)).toEqual([1, 2, 3]);
    expect(s.hasGap()).toBe(false);
  });

  it('drops duplicates and everything up to Last-Event-ID', () => {
    const s = new FrameSequencer(3);
    expect(s.accept(f(1))).toEqual([]);
    expect(s.accept(f(3))).toEqual([]);
    expect(s.accept(f(4)).map((x) => x.seq)).toEqual([4]);
    expect(s.accept(f(4))).toEqual([]);
  });

  it('ignores frames without an integer seq', () => {
    const s = new FrameSequencer(0);
    expect(s.accept({ seq: Number.NaN, type: 'x' })).toEqual([]);
    expect(s.accept({ seq: 1.5, type: 'x' })).toEqual([]);
  });
});

describe('parseLastEventId', () => {
  it.each([
    [undefined, 0],
    ['', 0],
    ['0', 0],
    ['42', 42],
    [' 7 ', 7],
    ['-1', null],
    ['abc', null],
    ['1e3', null],
    ['9999999999999999', null],
  ])('%p → %p', (input, expected) => {
    expect(parseLastEventId(input)).toBe(expected);
  });
});
