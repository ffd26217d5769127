// Schema validation of rendered objects with kubernetes-models: the model class
// for the object's apiVersion/kind is constructed and `.validate()` is called.
// This catches wrong types, bad enums and missing required fields; it does not
// catch unknown (misspelled) keys, which strict-check.mjs does.

/** Raised when kubernetes-models itself is not installed. */
export class MissingModelsError extends Error {}

const modelCache = new Map();

/**
 * Imports the kubernetes-models class for an apiVersion/kind, or returns undefined
 * when the package has no model for it.
 * @param {string} apiVersion e.g. "apps/v1" or "v1"
 * @param {string} kind e.g. "Deployment"
 * @returns {Promise<(new (data: unknown) => {validate(): void}) | undefined>}
 */
export async function loadModel(apiVersion, kind) {
  const key = `${apiVersion}/${kind}`;
  if (modelCache.has(key)) return modelCache.get(key);
  let model;
  // Only plain names reach the import specifier.
  if (/^([a-z0-9.-]+\/)?v[0-9a-z]+$/.test(apiVersion) && /^[A-Z][A-Za-z0-9]*$/.test(kind)) {
    try {
      const mod = await import(`kubernetes-models/${apiVersion}/${kind}`);
      model = typeof mod[kind] === 'function' ? mod[kind] : undefined;
    } catch (e) {
      if (isMissingPackage(e)) {
        throw new MissingModelsError(
          'kubernetes-models is not installed: run `pnpm install` at the repository root first',
        );
      }
      model = undefined;
    }
  }
  modelCache.set(key, model);
  return model;
}

/**
 * Validates one object; returns problems as "field.path: reason" strings.
 * @param {any} obj
 * @returns {Promise<string[]>}
 */
export async function modelProblems(obj) {
  if (typeof obj?.apiVersion !== 'string' || typeof obj?.kind !== 'string') {
    return ['apiVersion and kind must both be strings'];
  }
  const Model = await loadModel(obj.apiVersion, obj.kind);
  if (!Model)
    return [
      `kubernetes-models has no schema for ${obj.apiVersion} ${obj.kind} (typo in apiVersion or kind?)`,
    ];
  try {
    new Model(obj).validate();
    return [];
  } catch (e) {
    const errors = Array.isArray(e?.errors) ? e.errors : undefined;
    if (!errors) return [`kubernetes-models: ${e?.message ?? e}`];
    return errors.map(formatAjvError);
  }
}

/**
 * Formats one Ajv-style error as "a.b[0].c: reason".
 * @param {{instancePath?: string, message?: string, keyword?: string, params?: any}} err
 * @returns {string}
 */
export function formatAjvError(err) {
  const path = pointerToPath(err.instancePath ?? '');
  let reason = err.message ?? err.keyword ?? 'invalid';
  if (err.keyword === 'enum' && err.params?.allowedValues) {
    reason = `must be one of ${err.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  } else if (err.keyword === 'required' && err.params?.missingProperty) {
    reason = `missing required field "${err.params.missingProperty}"`;
  } else if (err.keyword === 'type' && err.params?.type) {
    reason = `must be ${Array.isArray(err.params.type) ? err.params.type.join(' or ') : err.params.type}`;
  }
  return `${path || '(object)'}: ${reason}`;
}

/**
 * "/spec/template/spec/containers/0/image" -> "spec.template.spec.containers[0].image"
 * @param {string} pointer
 * @returns {string}
 */
export function pointerToPath(pointer) {
  return pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, t) => (/^[0-9]+$/.test(t) ? `${acc}[${t}]` : acc ? `${acc}.${t}` : t), '');
}

function isMissingPackage(e) {
  return (
    e?.code === 'ERR_MODULE_NOT_FOUND' && /Cannot find package 'kubernetes-models'/.test(String(e.message))
  );
}
