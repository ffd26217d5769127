/**
 * An entity as the graph shows it: one view per root, its facts unioned over
 * the merged tree of entity rows under it. Both graph stores read the rows
 * and make the views here.
 */
import type { EntityView } from './ports.js';

/** One entity row under a root, with its own aliases and external ids. */
export interface MemberRow {
  id: string;
  rootId: string;
  name: string;
  canonicalName: string;
  type: string;
  subtype: string;
  confidence: number;
  /** ISO times. */
  createdAt: string;
  updatedAt: string;
  source: string;
  aliases: readonly string[];
  externalIds: Readonly<Record<string, string>>;
}

/**
 * The views of the roots `ids`, in that order (a root without rows is left out), from their members
 * oldest first: the root's own name, canonical name, subtype, confidence and source; every member's
 * name and alias as aliases (not the entity's name); an external id of a kind from the oldest member
 * carrying one; the root first among the members.
 */
export function entityViews(members: readonly MemberRow[], ids: readonly string[]): EntityView[] {
  const views = new Map<string, EntityView & { names: Set<string>; sources: Set<string> }>();
  for (const m of members) {
    let v = views.get(m.rootId);
    if (!v) {
      v = {
        id: m.rootId,
        name: '',
        canonicalName: '',
        type: m.type,
        subtype: '',
        aliases: [],
        externalIds: {},
        confidence: 0,
        mergeCount: 0,
        sourceCount: 0,
        firstSeen: m.createdAt,
        lastSeen: m.updatedAt,
        source: m.source,
        members: [],
        names: new Set(),
        sources: new Set(),
      };
      views.set(m.rootId, v);
    }
    if (m.id === m.rootId) Object.assign(v, { name: m.name, canonicalName: m.canonicalName, subtype: m.subtype, confidence: m.confidence, source: m.source });
    v.names.add(m.name);
    for (const a of m.aliases) v.names.add(a);
    v.sources.add(m.source);
    v.mergeCount++;
    for (const [kind, value] of Object.entries(m.externalIds)) if (value && !v.externalIds[kind]) v.externalIds[kind] = value;
    const member = { id: m.id, name: m.name, source: m.source };
    if (m.id === m.rootId) v.members.unshift(member);
    else v.members.push(member);
    if (m.updatedAt > v.lastSeen) v.lastSeen = m.updatedAt;
  }
  return ids.flatMap((id) => {
    const v = views.get(id);
    if (!v) return [];
    const { names, sources, ...view } = v;
    return [{ ...view, aliases: [...names].filter((n) => n !== v.name).sort(), sourceCount: sources.size }];
  });
}
