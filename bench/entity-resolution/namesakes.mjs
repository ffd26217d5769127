// PERSON (first, last, state) keys, normalised as the resolver normalises names, held by records of
// more than one true entity: namesakes a name and a state cannot tell apart. Shared by
// resolve.bench.mjs (`namesake_keys`) and diagnose.mjs (the count per bucket).
export const namesakeKey = (rec) => (rec.person?.last ? `${rec.person.first}|${rec.person.last}|${rec.state ?? ''}` : undefined);

/** Key → its one entity, or null when more than one entity holds it. `rows`: [normalised record, entity id]. */
export function namesakeOwners(rows) {
  const owner = new Map();
  for (const [rec, entityId] of rows) {
    const k = namesakeKey(rec);
    if (k === undefined) continue;
    const had = owner.get(k);
    if (had === undefined) owner.set(k, entityId);
    else if (had !== entityId) owner.set(k, null);
  }
  return owner;
}
