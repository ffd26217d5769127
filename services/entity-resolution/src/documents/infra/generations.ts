/** The per-owner write generations of the document index (see the migration `DocumentsIndexGenerations`). */
import { sqlRows, type Queryable } from '@af/service-kit';

export type IndexPart = 'chunks' | 'vectors';

/** Bumps and returns the owner's generation of `part` (in the caller's transaction when `q` is one). */
export async function bumpGeneration(q: Queryable, owner: string, part: IndexPart): Promise<number> {
  const [r] = await sqlRows(
    q,
    `INSERT INTO doc_index_generations (owner_user_id, part, generation) VALUES ($1, $2, 1)
     ON CONFLICT (owner_user_id, part) DO UPDATE SET generation = doc_index_generations.generation + 1
     RETURNING generation`,
    [owner, part],
  );
  return Number(r.generation);
}

export async function readGeneration(q: Queryable, owner: string, part: IndexPart): Promise<number> {
  const [r] = await sqlRows(q, 'SELECT generation FROM doc_index_generations WHERE owner_user_id = $1 AND part = $2', [owner, part]);
  return r ? Number(r.generation) : 0;
}

/**
 * A small cache of per-owner in-memory indexes tagged with the generation
 * they were loaded at: `get` reloads when the stored generation moved
 * (another replica wrote), `applied` folds a local write in place when the
 * cache was current just before it, and drops the entry otherwise.
 */
export class GenerationCache<T> {
  private readonly entries = new Map<string, { value: T; generation: number }>();
  private readonly loading = new Map<string, Promise<{ value: T; generation: number }>>();
  private readonly loadingAt = new Map<string, number>();

  constructor(private readonly maxOwners = 64) {}

  async get(owner: string, current: number, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(owner);
    if (hit && hit.generation >= current) return hit.value;
    let p = this.loading.get(owner);
    if (!p || this.loadingAt.get(owner)! < current) {
      this.loadingAt.set(owner, current);
      p = load().then((value) => ({ value, generation: current }));
      this.loading.set(owner, p);
      void p.then(
        (e) => {
          if (this.loading.get(owner) === p) this.loading.delete(owner);
          const now = this.entries.get(owner);
          if (!now || now.generation < e.generation) this.put(owner, e);
        },
        () => {
          if (this.loading.get(owner) === p) this.loading.delete(owner);
        },
      );
    }
    return (await p).value;
  }

  private put(owner: string, e: { value: T; generation: number }): void {
    this.entries.delete(owner);
    this.entries.set(owner, e);
    if (this.entries.size > this.maxOwners) this.entries.delete(this.entries.keys().next().value!);
  }

  /**
   * A local write produced `generation`: apply it to the cached index when
   * that was the next one (`apply` answering false: it cannot, drop it).
   */
  applied(owner: string, generation: number, apply: (value: T) => boolean | void): void {
    const hit = this.entries.get(owner);
    if (!hit || hit.generation >= generation) return;
    if (hit.generation === generation - 1 && apply(hit.value) !== false) hit.generation = generation;
    else this.entries.delete(owner);
  }
}
