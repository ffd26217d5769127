/**
 * A result's records as entities for entity-resolution's `resolve_entities`
 * (types PERSON and ORG): the name from `name_field`, the type from the
 * record's `type` / `entity_type` or the destination's default; records
 * without a name or a resolvable type are counted, not sent.
 */
export interface GraphMapping {
  nameField: string;
  defaultType?: 'PERSON' | 'ORG' | undefined;
}

const CARRIED = ['aliases', 'external_ids', 'city', 'state', 'employer', 'title', 'subtype', 'confidence'] as const;

export function recordsToEntities(
  rows: Record<string, unknown>[],
  m: GraphMapping,
): { entities: Record<string, unknown>[]; skipped: number } {
  const entities: Record<string, unknown>[] = [];
  let skipped = 0;
  rows.forEach((r, i) => {
    const name = r[m.nameField];
    const rawType = r.type ?? r.entity_type ?? m.defaultType;
    const type = typeof rawType === 'string' ? rawType.toUpperCase() : '';
    if (typeof name !== 'string' || !name.trim() || (type !== 'PERSON' && type !== 'ORG')) {
      skipped++;
      return;
    }
    const e: Record<string, unknown> = { name: name.trim().slice(0, 500), type, source_record_index: i };
    for (const k of CARRIED) if (r[k] !== undefined && r[k] !== null) e[k] = r[k];
    entities.push(e);
  });
  return { entities, skipped };
}

/** Delay before retry `attempt` (1-based): base doubling, capped. */
export function retryDelayMs(attempt: number, baseMs: number, maxMs = 3_600_000): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
}
