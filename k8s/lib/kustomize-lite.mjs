// A built-in renderer for the small subset of kustomize our manifests use, so
// the validator still works on a machine without kubectl. Anything outside the
// subset is refused with a message naming the field, never silently ignored.
//
// Order of operations matches kustomize for these fields: resources are built
// (nested kustomizations first, fully), then patches, namespace, replicas, images.
// It is stricter than kustomize in three places, each a likely typo:
// a patch whose target matches nothing, a `replace`/`remove` of a missing path,
// and an `images` entry that matches no container.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { applyJsonPatch, JsonPatchError } from './json-patch.mjs';
import { CLUSTER_SCOPED_KINDS, containersOf, podSpecOf, refOf } from './objects.mjs';

/** Raised when a kustomization cannot be rendered; `unsupported` marks "outside the subset". */
export class RenderError extends Error {
  /** @param {string} message @param {{unsupported?: boolean}} [opts] */
  constructor(message, opts = {}) {
    super(message);
    this.unsupported = Boolean(opts.unsupported);
  }
}

/** The kustomization fields this renderer understands. */
export const SUPPORTED_FIELDS = [
  'apiVersion',
  'kind',
  'namespace',
  'resources',
  'images',
  'replicas',
  'patches',
];
const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
const SCALABLE_KINDS = new Set(['Deployment', 'ReplicaSet', 'StatefulSet', 'ReplicationController']);
const TARGET_FIELDS = new Set(['kind', 'name', 'group', 'version', 'namespace']);

/**
 * Renders the kustomization in `dir` to a list of plain objects.
 * @param {string} dir
 * @returns {any[]}
 */
export function renderKustomization(dir) {
  return build(resolve(dir), []);
}

function build(dir, stack) {
  if (stack.includes(dir))
    throw new RenderError(`kustomization cycle: ${[...stack, dir].map(rel).join(' -> ')}`);
  const file = KUSTOMIZATION_FILES.map((f) => join(dir, f)).find((f) => existsSync(f));
  if (!file) throw new RenderError(`${rel(dir)}: no kustomization.yaml`);
  const k = parse(readFileSync(file, 'utf8')) ?? {};
  const where = rel(file);
  for (const key of Object.keys(k)) {
    if (!SUPPORTED_FIELDS.includes(key)) {
      throw new RenderError(
        `${where}: field "${key}" is outside what the built-in renderer supports (${SUPPORTED_FIELDS.join(', ')})`,
        { unsupported: true },
      );
    }
  }
  let objects = [];
  for (const entry of k.resources ?? []) objects.push(...loadResource(dir, entry, where, [...stack, dir]));
  assertUnique(objects, where);
  (k.patches ?? []).forEach((p, i) => (objects = applyPatch(objects, p, dir, `${where} patches[${i}]`)));
  if (k.namespace) objects = objects.map((o) => withNamespace(o, k.namespace));
  (k.replicas ?? []).forEach((r, i) => applyReplicas(objects, r, `${where} replicas[${i}]`));
  (k.images ?? []).forEach((img, i) => applyImage(objects, img, `${where} images[${i}]`));
  return objects;
}

function loadResource(dir, entry, where, stack) {
  if (typeof entry !== 'string') throw new RenderError(`${where}: resources entries must be strings`);
  if (/^[a-z]+:\/\/|^git@/.test(entry)) {
    throw new RenderError(`${where}: remote resource "${entry}" is not supported`, { unsupported: true });
  }
  const path = resolve(dir, entry);
  if (!existsSync(path)) throw new RenderError(`${where}: resource "${entry}" does not exist`);
  if (statSync(path).isDirectory()) return build(path, stack);
  return parseAllDocuments(readFileSync(path, 'utf8')).flatMap((doc, i) => {
    if (doc.errors.length > 0) throw new RenderError(`${rel(path)} document ${i}: ${doc.errors[0].message}`);
    const value = doc.toJS();
    if (value === null || value === undefined) return [];
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new RenderError(`${rel(path)} document ${i}: not a Kubernetes object`);
    }
    return [value];
  });
}

function assertUnique(objects, where) {
  const seen = new Set();
  for (const o of objects) {
    const id = refOf(o);
    if (seen.has(id)) throw new RenderError(`${where}: ${id} is defined twice`);
    seen.add(id);
  }
}

function applyPatch(objects, patch, dir, where) {
  if (!patch?.target) {
    throw new RenderError(`${where}: only JSON6902 patches with a target are supported`, {
      unsupported: true,
    });
  }
  const unknown = Object.keys(patch.target).filter((f) => !TARGET_FIELDS.has(f));
  if (unknown.length > 0) {
    throw new RenderError(`${where}: target field(s) ${unknown.join(', ')} not supported`, {
      unsupported: true,
    });
  }
  const text = patch.path ? readFileSync(resolve(dir, patch.path), 'utf8') : patch.patch;
  if (typeof text !== 'string') throw new RenderError(`${where}: needs "patch" or "path"`);
  const ops = parse(text);
  if (!Array.isArray(ops)) {
    throw new RenderError(`${where}: strategic-merge patches are not supported; use a JSON6902 list`, {
      unsupported: true,
    });
  }
  let matched = 0;
  const out = objects.map((o) => {
    if (!targets(patch.target, o)) return o;
    matched++;
    try {
      return applyJsonPatch(o, ops);
    } catch (e) {
      if (e instanceof JsonPatchError) throw new RenderError(`${where} on ${refOf(o)}: ${e.message}`);
      throw e;
    }
  });
  if (matched === 0)
    throw new RenderError(`${where}: target ${JSON.stringify(patch.target)} matches no object`);
  return out;
}

// kustomize treats each target field as a regular expression matched against the whole value.
function targets(target, obj) {
  const [group, version] = obj.apiVersion?.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
  const actual = {
    kind: obj.kind,
    name: obj.metadata?.name,
    namespace: obj.metadata?.namespace,
    group,
    version,
  };
  return Object.entries(target).every(([field, pattern]) =>
    new RegExp(`^(?:${pattern})$`).test(actual[field] ?? ''),
  );
}

// kustomize's namespace transformer also renames Namespace objects to the namespace.
function withNamespace(obj, namespace) {
  const copy = structuredClone(obj);
  copy.metadata ??= {};
  if (copy.kind === 'Namespace') copy.metadata.name = namespace;
  else if (!CLUSTER_SCOPED_KINDS.has(copy.kind)) copy.metadata.namespace = namespace;
  return copy;
}

function applyReplicas(objects, entry, where) {
  if (typeof entry?.name !== 'string' || !Number.isInteger(entry.count)) {
    throw new RenderError(`${where}: needs a name and an integer count`);
  }
  const hits = objects.filter((o) => SCALABLE_KINDS.has(o.kind) && o.metadata?.name === entry.name);
  if (hits.length === 0) throw new RenderError(`${where}: no Deployment/StatefulSet named "${entry.name}"`);
  for (const o of hits) o.spec = { ...o.spec, replicas: entry.count };
}

function applyImage(objects, entry, where) {
  const allowed = new Set(['name', 'newName', 'newTag', 'digest']);
  const extra = Object.keys(entry ?? {}).filter((f) => !allowed.has(f));
  if (extra.length > 0)
    throw new RenderError(`${where}: field(s) ${extra.join(', ')} not supported`, { unsupported: true });
  let matched = 0;
  for (const obj of objects) {
    const pod = podSpecOf(obj);
    if (!pod) continue;
    for (const { container } of containersOf(pod)) {
      const image = splitImage(container.image ?? '');
      if (image.name !== entry.name) continue;
      matched++;
      const name = entry.newName ?? image.name;
      if (entry.digest) container.image = `${name}@${entry.digest}`;
      else if (entry.newTag !== undefined) container.image = `${name}:${entry.newTag}`;
      else container.image = `${name}${image.suffix}`;
    }
  }
  if (matched === 0) throw new RenderError(`${where}: no container uses image "${entry.name}"`);
}

/**
 * Splits an image reference into its name and the ":tag" / "@digest" suffix.
 * A colon only starts a tag after the last slash (so "host:5000/app" has no tag).
 * @param {string} ref
 * @returns {{name: string, tag?: string, digest?: string, suffix: string}}
 */
export function splitImage(ref) {
  const at = ref.indexOf('@');
  const digest = at >= 0 ? ref.slice(at + 1) : undefined;
  const rest = at >= 0 ? ref.slice(0, at) : ref;
  const colon = rest.lastIndexOf(':');
  const hasTag = colon > rest.lastIndexOf('/');
  const name = hasTag ? rest.slice(0, colon) : rest;
  const tag = hasTag ? rest.slice(colon + 1) : undefined;
  return { name, tag, digest, suffix: ref.slice(name.length) };
}

function rel(path) {
  return relative(process.cwd(), path) || '.';
}
