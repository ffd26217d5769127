// Rendering a kustomization: `kubectl kustomize` when kubectl is installed
// (the authority), otherwise the built-in subset renderer. With kubectl the
// built-in renderer runs as well and the two results are compared, so the
// fallback used on kubectl-less machines is proven equivalent on every CI run.

import { spawnSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import { renderKustomization, RenderError } from './kustomize-lite.mjs';
import { refOf } from './objects.mjs';

// KUBECTL picks another binary (or, pointed at nothing, simulates a machine without one).
const KUBECTL = process.env.KUBECTL || 'kubectl';

/**
 * The kubectl client version, or undefined when kubectl cannot be run.
 * @returns {string | undefined}
 */
export function kubectlVersion() {
  const r = spawnSync(KUBECTL, ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return undefined;
  try {
    const v = JSON.parse(r.stdout);
    return `kubectl ${v.clientVersion?.gitVersion ?? '?'} (kustomize ${v.kustomizeVersion ?? '?'})`;
  } catch {
    return 'kubectl (unknown version)';
  }
}

/**
 * Renders `dir` with `kubectl kustomize`.
 * @param {string} dir
 * @returns {any[]}
 */
export function renderWithKubectl(dir) {
  const r = spawnSync(KUBECTL, ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new RenderError(`cannot run kubectl: ${r.error.message}`);
  if (r.status !== 0) throw new RenderError(`kubectl kustomize ${dir} failed: ${r.stderr.trim()}`);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS())
    .filter((o) => o !== null && o !== undefined);
}

/**
 * Renders `dir` according to `mode` ("auto" | "kubectl" | "builtin").
 * Returns the objects, which renderer produced them, and notes/problems about
 * the built-in renderer when it ran alongside kubectl.
 * @param {string} dir
 * @param {{mode: 'auto' | 'kubectl' | 'builtin', kubectl?: string}} opts
 * @returns {{objects: any[], renderer: string, notes: string[], problems: string[]}}
 */
export function render(dir, { mode, kubectl }) {
  if (mode === 'builtin' || (mode === 'auto' && !kubectl)) {
    return {
      objects: renderKustomization(dir),
      renderer: 'built-in kustomize subset',
      notes: [],
      problems: [],
    };
  }
  if (!kubectl) {
    throw new RenderError('--renderer=kubectl was asked for but kubectl is not installed or not on PATH');
  }
  const objects = renderWithKubectl(dir);
  const notes = [];
  const problems = [];
  try {
    problems.push(...compareRenders(objects, renderKustomization(dir)));
  } catch (e) {
    if (!(e instanceof RenderError)) throw e;
    if (e.unsupported) notes.push(`machines without kubectl cannot render this: ${e.message}`);
    else problems.push(`built-in renderer: ${e.message}`);
  }
  return { objects, renderer: kubectl, notes, problems };
}

/**
 * Differences between two renders of the same kustomization, compared as sets
 * of objects (kubectl sorts by kind; the order carries no meaning).
 * @param {any[]} expected kubectl's render
 * @param {any[]} actual the built-in render
 * @returns {string[]}
 */
export function compareRenders(expected, actual) {
  const index = (list) => new Map(list.map((o) => [refOf(o), canonical(o)]));
  const want = index(expected);
  const got = index(actual);
  const out = [];
  for (const [ref, json] of want) {
    if (!got.has(ref)) out.push(`built-in renderer is missing ${ref}`);
    else if (got.get(ref) !== json) out.push(`built-in renderer disagrees with kubectl on ${ref}`);
  }
  for (const ref of got.keys()) if (!want.has(ref)) out.push(`built-in renderer produced an extra ${ref}`);
  return out;
}

function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
