import { DEFAULT_THRESHOLDS } from '../domain/decision.js';
import { parseThresholdFlags } from './thresholds.js';

describe('parseThresholdFlags', () => {
  it('gives the defaults without flags and takes each flag on its own', () => {
    expect(parseThresholdFlags({})).toEqual(DEFAULT_THRESHOLDS);
    expect(parseThresholdFlags({ review: '0.25' })).toEqual({ auto: 0.9, review: 0.25 });
    expect(parseThresholdFlags({ auto: '0.95' })).toEqual({ auto: 0.95, review: DEFAULT_THRESHOLDS.review });
    expect(parseThresholdFlags({ auto: '1', review: '0' })).toEqual({ auto: 1, review: 0 });
    expect(parseThresholdFlags({ auto: '.8', review: '.8' })).toEqual({ auto: 0.8, review: 0.8 });
  });
  it.each([
    [{ review: 'abc' }, '--review-threshold abc: must be a probability between 0 and 1'],
    [{ review: '' }, '--review-threshold : must be a probability between 0 and 1'],
    [{ review: '1.5' }, '--review-threshold 1.5: must be a probability between 0 and 1'],
    [{ review: '-0.1' }, '--review-threshold -0.1: must be a probability between 0 and 1'],
    [{ auto: '0x1' }, '--auto-threshold 0x1: must be a probability between 0 and 1'],
    [{ auto: '1e-1' }, '--auto-threshold 1e-1: must be a probability between 0 and 1'],
    [{ auto: '0.6' }, '--auto-threshold 0.6: must be at least 0.7 (no automatic merge below it)'],
    [{ review: '0.95' }, '--review-threshold 0.95: must not exceed the auto threshold 0.9'],
    [{ auto: '0.8', review: '0.85' }, '--review-threshold 0.85: must not exceed the auto threshold 0.8'],
  ])('refuses %j, naming the flag', (flags, message) => {
    expect(() => parseThresholdFlags(flags)).toThrow(new Error(message));
  });
});
