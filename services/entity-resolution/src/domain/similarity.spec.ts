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

describe('withinEdits against the full optimal-string-alignment table', () => {
  // The reference: the unbanded table, no early exit, no fast path.
  const osa = (a: string, b: string): number => {
    const d = Array.from({ length: a.length + 1 }, (_, i) =>
      Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
    );
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++) {
        d[i]![j] = Math.min(
          d[i - 1]![j]! + 1,
          d[i]![j - 1]! + 1,
          d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
        );
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
          d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    return d[a.length]![b.length]!;
  };
  it('agrees on 20,000 random pairs of short strings over a small alphabet, k = 0..3', () => {
    let state = 12345;
    const rnd = (n: number) => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return (state >>> 8) % n;
    };
    const wrong: string[] = [];
    const word = () => Array.from({ length: rnd(9) }, () => 'abc'[rnd(3)]).join('');
    for (let t = 0; t < 20_000; t++) {
      const a = word();
      // Half the pairs one or two random edits apart, so the small distances are well covered.
      let b = t % 2 ? word() : a;
      if (t % 2 === 0)
        for (let e = 0; e <= rnd(2); e++) {
          const at = rnd(b.length + 1);
          const op = rnd(4);
          if (op === 0) b = b.slice(0, at) + 'abc'[rnd(3)] + b.slice(at);
          else if (op === 1) b = b.slice(0, at) + b.slice(at + 1);
          else if (op === 2) b = b.slice(0, at) + 'abc'[rnd(3)] + b.slice(at + 1);
          else b = b.slice(0, at) + b.slice(at + 1, at + 2) + b.slice(at, at + 1) + b.slice(at + 2);
        }
      const d = osa(a, b);
      for (let k = 0; k <= 3; k++) if (withinEdits(a, b, k) !== d <= k) wrong.push(`${a} ~ ${b} within ${k}`);
    }
    expect(wrong).toEqual([]);
  });
  it('gives the same answers in any order of calls (no state left between calls)', () => {
    const pairs: Array<[string, string, number]> = [
      ['abcdefghijklmnopqrstuvwxyz', 'abcdefghijklmnopqrstuvwxzy', 1],
      ['ab', 'ba', 1],
      ['smith', 'smiht', 2],
      ['', 'a', 1],
      ['a', '', 0],
    ];
    const once = pairs.map(([a, b, k]) => withinEdits(a, b, k));
    const again = [...pairs]
      .reverse()
      .map(([a, b, k]) => withinEdits(a, b, k))
      .reverse();
    expect(again).toEqual(once);
    expect(once).toEqual([true, true, true, true, false]);
    expect(jaro('martha', 'marhta')).toBeCloseTo(0.9444, 4);
    expect(
      jaro('abcdefghijklmnopqrstuvwxyz0123456789', 'abcdefghijklmnopqrstuvwxyz0123456789x'),
    ).toBeGreaterThan(0.9);
  });
});
