/**
 * Reversible merges. Facts (names, aliases, ids, relationships, provenance)
 * never move: each stays on the entity that first recorded it. A merge
 * only links one entity's root under another's (`parent`), and an entity as
 * the graph shows it is a whole tree, read through its root. Reversing a
 * merge removes exactly its link, so the graph returns to its prior state
 * even after later merges touched the same entities: those later links sit
 * above or beside the removed one and stay. A split unlinks a member from
 * its parent and is reversed by linking it back.
 */
export type MergeAction = 'auto_merge' | 'user_merge' | 'user_split';

export interface Link {
  child: string;
  parent: string;
  /**
   * The merge decision whose link this is. A split removes one decision's
   * link and its reversal puts back that decision's link; a merge is
   * reversible only while its own link is in place, not an equal link a
   * later decision made after a split.
   */
  owner?: string;
}

export type ForestError = { code: 'not_found' | 'same_entity' | 'not_linked' | 'not_root'; message: string };

export class MergeForest {
  private readonly parent = new Map<string, string>();
  private readonly owner = new Map<string, string>();
  private readonly nodes = new Set<string>();

  constructor(ids: Iterable<string> = [], links: Iterable<Link> = []) {
    for (const id of ids) this.nodes.add(id);
    for (const l of links) {
      this.parent.set(l.child, l.parent);
      if (l.owner !== undefined) this.owner.set(l.child, l.owner);
    }
  }

  add(id: string): void {
    this.nodes.add(id);
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  root(id: string): string {
    let at = id;
    for (let p = this.parent.get(at); p !== undefined; p = this.parent.get(at)) at = p;
    return at;
  }

  /** Merge the entity holding `source` into the one holding `target`: the link the decision records. */
  merge(source: string, target: string, decision?: string): Link | ForestError {
    if (!this.nodes.has(source) || !this.nodes.has(target))
      return { code: 'not_found', message: `unknown entity ${this.nodes.has(source) ? target : source}` };
    const child = this.root(source);
    const parent = this.root(target);
    if (child === parent)
      return { code: 'same_entity', message: `${source} and ${target} are already one entity` };
    this.parent.set(child, parent);
    if (decision === undefined) this.owner.delete(child);
    else this.owner.set(child, decision);
    return { child, parent, ...(decision !== undefined ? { owner: decision } : {}) };
  }

  /** Detach `member` (and what was merged under it) from its parent. */
  split(member: string): Link | ForestError {
    const parent = this.parent.get(member);
    if (!this.nodes.has(member)) return { code: 'not_found', message: `unknown entity ${member}` };
    if (parent === undefined)
      return { code: 'not_linked', message: `${member} is not merged into another entity` };
    this.parent.delete(member);
    const owner = this.owner.get(member);
    this.owner.delete(member);
    return { child: member, parent, ...(owner !== undefined ? { owner } : {}) };
  }

  /** Undo a merge: remove its link. */
  unlink(link: Link): ForestError | undefined {
    if (this.parent.get(link.child) !== link.parent)
      return { code: 'not_linked', message: `${link.child} is no longer merged into ${link.parent}` };
    if (link.owner !== undefined && this.owner.get(link.child) !== link.owner)
      return {
        code: 'not_linked',
        message: `the link of ${link.child} into ${link.parent} is a later decision's`,
      };
    this.parent.delete(link.child);
    this.owner.delete(link.child);
    return undefined;
  }

  /** Undo a split: restore its link, unless the member has been merged elsewhere since. */
  relink(link: Link): ForestError | undefined {
    if (!this.nodes.has(link.child) || !this.nodes.has(link.parent))
      return { code: 'not_found', message: 'entity no longer exists' };
    if (this.parent.has(link.child))
      return { code: 'not_root', message: `${link.child} has been merged elsewhere since the split` };
    if (this.root(link.parent) === link.child)
      return { code: 'same_entity', message: 'the link would form a cycle' };
    this.parent.set(link.child, link.parent);
    if (link.owner !== undefined) this.owner.set(link.child, link.owner);
    return undefined;
  }

  links(): Link[] {
    return [...this.parent.entries()]
      .map(([child, parent]) => ({ child, parent }))
      .sort((a, b) => a.child.localeCompare(b.child));
  }

  /** Members grouped by root. */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const id of [...this.nodes].sort()) {
      const r = this.root(id);
      const g = out.get(r);
      if (g) g.push(id);
      else out.set(r, [id]);
    }
    return out;
  }
}

export const isForestError = (x: unknown): x is ForestError =>
  typeof x === 'object' && x !== null && 'code' in x;
