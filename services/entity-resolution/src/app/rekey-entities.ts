/**
 * Keys again the stored entities whose block keys are of an older version
 * (see BLOCK_KEYS_VERSION), and gives those stored before their
 * term-frequency key was kept on their row that key, in batches, off the
 * request path: started when the service starts, stopped when it stops.
 * Replicas share the work (each batch locks its rows, others skip them).
 * Until an entity is keyed again it is still found through the keys it has.
 */
import type { GraphDecisions } from './ports.js';

export interface RekeyLog {
  info(obj: object, msg: string): void;
}

export async function rekeyStaleEntities(
  store: Pick<GraphDecisions, 'rekeyStale'>,
  log: RekeyLog,
  signal?: AbortSignal,
  batch = 500,
): Promise<number> {
  let total = 0;
  while (!signal?.aborted) {
    const n = await store.rekeyStale(batch);
    total += n;
    if (n > 0) log.info({ entities: total }, 'entities keyed again with the current block keys');
    if (n < batch) break;
  }
  return total;
}
