// RFC 6902 JSON Patch for the built-in kustomize renderer.
//
// Deliberately stricter than kustomize: `replace` and `remove` fail when the
// target does not exist (kustomize silently adds on `replace`), because in our
// manifests a missing target is always a typo in the path.

/** Raised for a patch that cannot be applied; the message names the op and path. */
export class JsonPatchError extends Error {}

const SUPPORTED_OPS = new Set(['add', 'remove', 'replace', 'test']);

/**
 * Applies RFC 6902 operations to a deep copy of `doc` and returns the copy.
 * @param {unknown} doc
 * @param {Array<{op: string, path: string, value?: unknown}>} ops
 * @returns {unknown}
 */
export function applyJsonPatch(doc, ops) {
  if (!Array.isArray(ops)) throw new JsonPatchError('a JSON6902 patch must be a list of operations');
  let result = structuredClone(doc);
  ops.forEach((op, i) => {
    const where = `operation ${i} (${op?.op} ${op?.path})`;
    if (!op || typeof op !== 'object') throw new JsonPatchError(`${where}: not an object`);
    if (!SUPPORTED_OPS.has(op.op)) {
      throw new JsonPatchError(`${where}: op must be one of ${[...SUPPORTED_OPS].join(', ')}`);
    }
    if (typeof op.path !== 'string') throw new JsonPatchError(`${where}: path must be a string`);
    if (op.op !== 'remove' && !('value' in op)) throw new JsonPatchError(`${where}: value is required`);
    result = applyOne(result, op, where);
  });
  return result;
}

/**
 * Splits a JSON pointer ("/a/b~1c") into unescaped tokens (["a", "b/c"]).
 * @param {string} pointer
 * @returns {string[]}
 */
export function parsePointer(pointer) {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new JsonPatchError(`path "${pointer}" must start with "/"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function applyOne(doc, op, where) {
  const tokens = parsePointer(op.path);
  if (tokens.length === 0) {
    if (op.op === 'test') return assertEqual(doc, op.value, where) && doc;
    if (op.op === 'remove') throw new JsonPatchError(`${where}: cannot remove the whole document`);
    return structuredClone(op.value);
  }
  const parent = walk(doc, tokens.slice(0, -1), where);
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) return applyToArray(doc, parent, last, op, where);
  if (parent === null || typeof parent !== 'object') {
    throw new JsonPatchError(`${where}: parent of the target is not an object or array`);
  }
  const exists = Object.prototype.hasOwnProperty.call(parent, last);
  switch (op.op) {
    case 'add':
      parent[last] = structuredClone(op.value);
      return doc;
    case 'replace':
      if (!exists) throw new JsonPatchError(`${where}: target does not exist (typo in the path?)`);
      parent[last] = structuredClone(op.value);
      return doc;
    case 'remove':
      if (!exists) throw new JsonPatchError(`${where}: target does not exist (typo in the path?)`);
      delete parent[last];
      return doc;
    default:
      if (!exists) throw new JsonPatchError(`${where}: target does not exist`);
      return assertEqual(parent[last], op.value, where) && doc;
  }
}

function applyToArray(doc, arr, token, op, where) {
  if (op.op === 'add' && token === '-') {
    arr.push(structuredClone(op.value));
    return doc;
  }
  if (!/^(0|[1-9][0-9]*)$/.test(token))
    throw new JsonPatchError(`${where}: "${token}" is not an array index`);
  const index = Number(token);
  const limit = op.op === 'add' ? arr.length : arr.length - 1;
  if (index > limit)
    throw new JsonPatchError(`${where}: index ${index} is out of range (length ${arr.length})`);
  switch (op.op) {
    case 'add':
      arr.splice(index, 0, structuredClone(op.value));
      return doc;
    case 'replace':
      arr[index] = structuredClone(op.value);
      return doc;
    case 'remove':
      arr.splice(index, 1);
      return doc;
    default:
      return assertEqual(arr[index], op.value, where) && doc;
  }
}

function walk(doc, tokens, where) {
  let node = doc;
  for (const token of tokens) {
    if (Array.isArray(node)) {
      node = /^(0|[1-9][0-9]*)$/.test(token) ? node[Number(token)] : undefined;
    } else if (node !== null && typeof node === 'object') {
      node = Object.prototype.hasOwnProperty.call(node, token) ? node[token] : undefined;
    } else {
      node = undefined;
    }
    if (node === undefined)
      throw new JsonPatchError(`${where}: "${token}" does not exist on the way to the target`);
  }
  return node;
}

function assertEqual(actual, expected, where) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new JsonPatchError(`${where}: test failed, found ${JSON.stringify(actual)}`);
  }
  return true;
}
