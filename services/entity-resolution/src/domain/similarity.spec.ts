import { soundex } from './phonetic.js';
import { jaro, jaroWinkler, tokenSet, withinEdits } from './similarity.js';

describe('jaro / jaroWinkler', () => {
  it('matches the textbook values', () => {
    expect(jaro('martha', 'marhta')).toBeCloseTo(0.9444, 4);
    expect(jaroWinkler('martha', 'marhta')).toBeCloseTo(0.9611, 4);
    expect(jaroWinkler('dwayne', 'duane')).toBeCloseTo(0.84, 2);
    expect(jaroWinkler('dixon', 'dicksonx')).toBeCloseTo(0.8133, 4);
  });
  it('is 1 for equal strings (including empty) and 0 against empty', () => {
    expect(jaroWinkler('abc', 'abc')).toBe(1);
    expect(jaroWinkler('', '')).toBe(1);
    expect(jaroWinkler('abc', '')).toBe(0);
    expect(jaroWinkler('abc', 'xyz')).toBe(0);
  });
  it('is symmetric and bounded', () => {
    for (const [a, b] of [
      ['smith', 'smyth'],
      ['johnson', 'jonson'],
      ['a', 'ab'],
      ['kowalski', 'kovalsky'],
    ] as const) {
      expect(jaroWinkler(a, b)).toBeCloseTo(jaroWinkler(b, a), 10);
      expect(jaroWinkler(a, b)).toBeGreaterThan(0);
      expect(jaroWinkler(a, b)).toBeLessThanOrEqual(1);
    }
  });
});

describe('tokenSet', () => {
  it('ignores order and duplicates', () => {
    expect(tokenSet(['acme', 'holdings'], ['holdings', 'acme', 'acme'])).toBe(1);
  });
  it('pairs words with one typo', () => {
    expect(tokenSet(['riverside', 'health'], ['riversdie', 'health'])).toBe(1);
  });
  it('scores partial overlap as 2·paired / (|A|+|B|)', () => {
    expect(tokenSet(['a1b2', 'health', 'alliance'], ['health', 'alliance'])).toBeCloseTo(0.8, 10);
    expect(tokenSet(['red'], ['blue'])).toBe(0);
  });
  it('handles empty sides', () => {
    expect(tokenSet([], [])).toBe(1);
    expect(tokenSet(['x'], [])).toBe(0);
  });
});

describe('soundex', () => {
  it.each([
    ['Robert', 'R163'],
    ['Rupert', 'R163'],
    ['Ashcraft', 'A261'],
    ['Tymczak', 'T522'],
    ['Pfister', 'P236'],
    ['Lee', 'L000'],
    ['', ''],
  ])('%s → %s', (w, code) => expect(soundex(w)).toBe(code));
});

describe('withinEdits', () => {
  it.each([
    ['smith', 'smith', 0, true],
    ['smith', 'smyth', 1, true],
    ['smith', 'smiht', 1, true],
    ['smith', 'smth', 1, true],
    ['smith', 'smithe', 1, true],
    ['smith', 'smyht', 1, false],
    ['smith', 'smyht', 2, true],
    ['abc', 'abcdef', 2, false],
    ['', 'a', 1, true],
  ])('%s ~ %s within %d: %s', (a, b, k, ok) => {
    expect(withinEdits(a, b, k)).toBe(ok);
    expect(withinEdits(b, a, k)).toBe(ok);
  });
});
