import { rng } from './generator.js';
import { isForestError, MergeForest, type Link } from './merge-forest.js';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `e${i}`);

type Decision = { id: string; kind: 'merge' | 'split'; link: Link; reversed: boolean };

describe('MergeForest', () => {
  it('merges roots and reads members through the root', () => {
    const f = new MergeForest(ids(4));
    expect(f.merge('e0', 'e1')).toEqual({ child: 'e0', parent: 'e1' });
    expect(f.merge('e2', 'e0')).toEqual({ child: 'e2', parent: 'e1' });
    expect(f.root('e2')).toBe('e1');
    expect(f.groups().get('e1')).toEqual(['e0', 'e1', 'e2']);
  });
  it('refuses unknown entities and merging an entity into itself', () => {
    const f = new MergeForest(ids(2));
    f.merge('e0', 'e1');
    expect(f.merge('e0', 'e1')).toMatchObject({ code: 'same_entity' });
    expect(f.merge('e0', 'nope')).toMatchObject({ code: 'not_found', message: 'unknown entity nope' });
  });
  it('reverses an early merge after a later merge touched the same entity', () => {
    const f = new MergeForest(ids(3));
    const first = f.merge('e0', 'e1') as Link;
    f.merge('e1', 'e2');
    expect(f.unlink(first)).toBeUndefined();
    expect(f.root('e0')).toBe('e0');
    expect(f.root('e1')).toBe('e2');
    expect(f.unlink(first)).toMatchObject({ code: 'not_linked' });
  });
  it('splits a member with what was merged under it, and re-links it', () => {
    const f = new MergeForest(ids(3));
    f.merge('e0', 'e1');
    f.merge('e1', 'e2');
    const split = f.split('e1') as Link;
    expect(split).toEqual({ child: 'e1', parent: 'e2' });
    expect(f.root('e0')).toBe('e1');
    expect(f.split('e2')).toMatchObject({ code: 'not_linked' });
    expect(f.relink(split)).toBeUndefined();
    expect(f.root('e0')).toBe('e2');
  });
  it('refuses to re-link a member merged elsewhere since its split', () => {
    const f = new MergeForest(ids(3));
    f.merge('e0', 'e1');
    const split = f.split('e0') as Link;
    f.merge('e0', 'e2');
    expect(f.relink(split)).toMatchObject({ code: 'not_root' });
  });

  it('property: 10,000 random merge / reverse sequences restore the identical state', () => {
    const r = rng(1234);
    for (let seq = 0; seq < 10_000; seq++) {
      const n = 2 + Math.floor(r() * 7);
      const f = new MergeForest(ids(n));
      const initial = JSON.stringify([...f.groups()]);
      const log: Array<{ link: Link; reversed: boolean }> = [];
      const steps = 1 + Math.floor(r() * 12);
      for (let s = 0; s < steps; s++) {
        if (r() < 0.65) {
          const link = f.merge(`e${Math.floor(r() * n)}`, `e${Math.floor(r() * n)}`);
          if (!isForestError(link)) log.push({ link, reversed: false });
        } else {
          // Reverse any live merge, however old: its link is always there to remove.
          const live = log.filter((d) => !d.reversed);
          const d = live[Math.floor(r() * live.length)];
          if (!d) continue;
          expect(f.unlink(d.link)).toBeUndefined();
          d.reversed = true;
        }
        // The state always equals a fresh forest built from the merges still live.
        const replay = new MergeForest(
          ids(n),
          log.filter((d) => !d.reversed).map((d) => d.link),
        );
        expect(JSON.stringify([...replay.groups()])).toBe(JSON.stringify([...f.groups()]));
      }
      // Reverse the rest in random order: the initial state, exactly.
      const rest = log.filter((d) => !d.reversed).sort(() => r() - 0.5);
      for (const d of rest) expect(f.unlink(d.link)).toBeUndefined();
      expect(JSON.stringify([...f.groups()])).toBe(initial);
      expect(f.links()).toEqual([]);
    }
  });

  it('property: 10,000 random merge / split / reverse sequences; a refused reversal changes nothing, and undoing every decision restores the identical state', () => {
    const r = rng(4321);
    const state = (f: MergeForest) =>
      JSON.stringify([[...f.groups()], f.links().map((l) => [l.child, l.parent])]);
    let splits = 0;
    let refused = 0;
    for (let seq = 0; seq < 10_000; seq++) {
      const n = 2 + Math.floor(r() * 6);
      const f = new MergeForest(ids(n));
      const initial = state(f);
      const log: Decision[] = [];
      const steps = 1 + Math.floor(r() * 14);
      for (let s = 0; s < steps; s++) {
        const roll = r();
        if (roll < 0.5) {
          const id = `d${log.length}`;
          const link = f.merge(`e${Math.floor(r() * n)}`, `e${Math.floor(r() * n)}`, id);
          if (!isForestError(link)) log.push({ id, kind: 'merge', link, reversed: false });
        } else if (roll < 0.7) {
          const link = f.split(`e${Math.floor(r() * n)}`);
          if (!isForestError(link)) {
            log.push({ id: `d${log.length}`, kind: 'split', link, reversed: false });
            splits++;
          }
        } else {
          const live = log.filter((d) => !d.reversed);
          const d = live[Math.floor(r() * live.length)];
          if (!d) continue;
          const before = state(f);
          const err = d.kind === 'merge' ? f.unlink(d.link) : f.relink(d.link);
          if (err) {
            refused++;
            expect(state(f)).toBe(before);
          } else d.reversed = true;
        }
      }
      // Undo what is still in force, newest first; a decision refused now (its link is held by one
      // reversed out of order) becomes reversible once that one is undone: repeat until none is left.
      for (let progress = true; progress;) {
        progress = false;
        for (const d of log.filter((x) => !x.reversed).reverse()) {
          if (!(d.kind === 'merge' ? f.unlink(d.link) : f.relink(d.link))) {
            d.reversed = true;
            progress = true;
          }
        }
      }
      expect(log.filter((x) => !x.reversed)).toEqual([]);
      expect(state(f)).toBe(initial);
    }
    // The sequences did exercise splits and refusals.
    expect(splits).toBeGreaterThan(2_000);
    expect(refused).toBeGreaterThan(500);
  });
});
