/**
 * The variables a node's `{…}` references see: run inputs (with the plan's
 * declared defaults), every finished node's output of its graph level under
 * its id and its outputKey, and — inside a map iteration — everything its map
 * node saw, plus `{current}` / `{index}` for the item.
 */
import type { PlanGraph, PlanNode } from '@af/plan';
import type { Scope } from '@af/expr';

export function runInputsWithDefaults(plan: PlanGraph, inputs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...inputs };
  for (const input of plan.inputs) if (out[input.name] === undefined && input.default !== undefined) out[input.name] = input.default;
  return out;
}

/**
 * What every top-level node sees before any output: the run inputs, also
 * under the reserved root `input` (workflow_steps), and — for a run of a
 * stored playbook — `last_execution_date`, the ISO start time of the owner's
 * last finished run of it (null on the first; the built-in wins over an input
 * of that name).
 */
export function runVars(plan: PlanGraph, inputs: Record<string, unknown>, lastExecutionAt?: Date | string | null): Record<string, unknown> {
  const runInputs = runInputsWithDefaults(plan, inputs);
  const vars: Record<string, unknown> = { input: runInputs, ...runInputs };
  if (lastExecutionAt !== undefined) vars.last_execution_date = lastExecutionAt ? new Date(lastExecutionAt).toISOString() : null;
  return vars;
}

/**
 * The scope of one graph level: `base` (what the level inherits) plus the
 * outputs of its nodes, looked up by instance id (`id + suffix`).
 */
export function levelScope(
  nodes: readonly PlanNode[],
  suffix: string,
  base: Record<string, unknown>,
  output: (instanceId: string) => { value: unknown } | undefined,
  runId: string,
  loop?: { current: unknown; index: number },
): Scope {
  const vars: Record<string, unknown> = { ...base };
  for (const node of nodes) {
    const found = output(node.id + suffix);
    if (!found) continue;
    vars[node.id] = found.value;
    if (node.outputKey) vars[node.outputKey] = found.value;
  }
  return { vars, executionId: runId, ...(loop ? { current: loop.current, index: loop.index } : {}) };
}

/** `buildScope` of a top-level node: run inputs and the plan's finished outputs. */
export function buildScope(plan: PlanGraph, inputs: Record<string, unknown>, outputs: ReadonlyMap<string, unknown>, runId: string): Scope {
  return levelScope(plan.nodes, '', runVars(plan, inputs), (id) => (outputs.has(id) ? { value: outputs.get(id) } : undefined), runId);
}

/**
 * Node outputs by instance id that also logs the order keys were set in, so
 * a level's scope can be brought up to date from the previous one instead of
 * being rebuilt from every node (`LevelScopes`). Entries given to the
 * constructor are not logged (a scope built afterwards reads them).
 */
export class OutputMap extends Map<string, unknown> {
  readonly log: string[] = [];

  override set(key: string, value: unknown): this {
    // The Map constructor calls set() before the field above exists.
    this.log?.push(key);
    return super.set(key, value);
  }
}

interface LevelIndex {
  /** Level nodes by instance id. */
  byInstance: Map<string, PlanNode>;
  /** Two nodes of the level answer to one name (id or outputKey): plan order decides, so scopes are rebuilt. */
  ambiguous: boolean;
}

/** A scope handed out, and who may still read it. */
interface ScopeRecord {
  scope: Scope;
  /** Borrowers that have not released it (see LevelScopes.borrow). */
  borrowers: number;
  /** Handed out by scopeOf: its holder may keep it, so it never changes. */
  pinned: boolean;
}

interface CachedScope {
  outputs: OutputMap;
  runId: string;
  seen: number;
  record: ScopeRecord;
}

/** A borrowed scope: it does not change until `release()`, after which its holder must not read it. */
export interface BorrowedScope {
  scope: Scope;
  release(): void;
}

/**
 * `levelScope` per graph level, kept up to date incrementally: a level's
 * scope is brought up to date only when an output of one of its nodes was
 * set since, by applying those outputs to the previous variables — O(new
 * outputs) lookups per node instead of O(level nodes).
 *
 * Scopes are snapshots: a scope someone still holds never changes. What
 * scopeOf returns is kept as it is for good (its holder may keep it, e.g. a
 * map's iterations inherit its variables), so the next change copies the
 * variables. What borrow() returns is kept as it is until released; once
 * every borrower released it, the next change updates its variables in place
 * instead of copying them — in a chain, where each node's scope is released
 * before the next one is taken, a scope costs O(new outputs), not
 * O(variables). Treat every scope as read-only.
 */
export class LevelScopes<L extends { nodes: readonly PlanNode[]; suffix: string; vars: Record<string, unknown>; loop?: { current: unknown; index: number } }> {
  private readonly cache = new WeakMap<L, CachedScope>();
  private readonly indexes = new WeakMap<L, LevelIndex>();

  /** The level's scope, kept unchanged for good. */
  scopeOf(level: L, outputs: OutputMap, runId: string): Scope {
    const record = this.current(level, outputs, runId);
    record.pinned = true;
    return record.scope;
  }

  /** The level's scope, unchanged until `release()` (called once; later calls do nothing). */
  borrow(level: L, outputs: OutputMap, runId: string): BorrowedScope {
    const record = this.current(level, outputs, runId);
    record.borrowers++;
    let released = false;
    return {
      scope: record.scope,
      release: () => {
        if (released) return;
        released = true;
        record.borrowers--;
      },
    };
  }

  private current(level: L, outputs: OutputMap, runId: string): ScopeRecord {
    const cached = this.cache.get(level);
    const seen = outputs.log.length;
    const same = cached?.outputs === outputs && cached.runId === runId;
    if (same && cached!.seen === seen) return cached!.record;
    const index = this.indexOf(level);
    let record: ScopeRecord;
    if (cached && same && !index.ambiguous) {
      record = cached.record;
      // Nobody holds the cached scope: its variables are updated in place.
      const inPlace = !record.pinned && record.borrowers === 0;
      let vars: Record<string, unknown> | undefined = inPlace ? record.scope.vars : undefined;
      for (let i = cached.seen; i < seen; i++) {
        const node = index.byInstance.get(outputs.log[i]!);
        if (!node) continue;
        vars ??= { ...record.scope.vars };
        const value = outputs.get(outputs.log[i]!);
        vars[node.id] = value;
        if (node.outputKey) vars[node.outputKey] = value;
      }
      if (vars && vars !== record.scope.vars) record = { scope: { ...record.scope, vars }, borrowers: 0, pinned: false };
    } else {
      const scope = levelScope(level.nodes, level.suffix, level.vars, (id) => (outputs.has(id) ? { value: outputs.get(id) } : undefined), runId, level.loop);
      record = { scope, borrowers: 0, pinned: false };
    }
    this.cache.set(level, { outputs, runId, seen, record });
    return record;
  }

  /** Whether `instanceId` names one of the level's node instances. */
  hasInstance(level: L, instanceId: string): boolean {
    return this.indexOf(level).byInstance.has(instanceId);
  }

  private indexOf(level: L): LevelIndex {
    let index = this.indexes.get(level);
    if (!index) {
      const names = new Set<string>();
      let ambiguous = false;
      const byInstance = new Map<string, PlanNode>();
      for (const node of level.nodes) {
        byInstance.set(node.id + level.suffix, node);
        for (const name of node.outputKey && node.outputKey !== node.id ? [node.id, node.outputKey] : [node.id]) {
          if (names.has(name)) ambiguous = true;
          names.add(name);
        }
      }
      index = { byInstance, ambiguous };
      this.indexes.set(level, index);
    }
    return index;
  }
}

