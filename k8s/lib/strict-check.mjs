// Unknown-key check: every key of a rendered object must be one the
// Kubernetes API defines at that place (see strict-schemas.mjs).

import Ajv from 'ajv';
import { pointerToPath } from './model-check.mjs';
import { closest } from './objects.mjs';
import { STRICT_SCHEMAS } from './strict-schemas.mjs';

const ajv = new Ajv({ allErrors: true, strict: true });
const compiled = new Map();

function validatorFor(kindKey) {
  if (!compiled.has(kindKey)) {
    const schema = STRICT_SCHEMAS[kindKey];
    compiled.set(kindKey, schema ? ajv.compile(schema) : undefined);
  }
  return compiled.get(kindKey);
}

/**
 * Unknown keys in `obj`, as "path: unknown key "x" (did you mean "y"?)" strings.
 * Kinds without a strict schema are reported so coverage never shrinks silently.
 * @param {any} obj
 * @returns {string[]}
 */
export function strictProblems(obj) {
  const kindKey = `${obj?.apiVersion} ${obj?.kind}`;
  const validate = validatorFor(kindKey);
  if (!validate) {
    return [
      `no strict key schema for ${kindKey}: add one to k8s/lib/strict-schemas.mjs before using this kind`,
    ];
  }
  if (validate(obj)) return [];
  return (validate.errors ?? [])
    .filter((e) => e.keyword === 'additionalProperties')
    .map((e) => {
      const key = e.params.additionalProperty;
      const allowed = Object.keys(schemaAt(STRICT_SCHEMAS[kindKey], e.schemaPath)?.properties ?? {});
      const hint = closest(key, allowed);
      const where = pointerToPath(e.instancePath) || '(top level)';
      return `${where}: unknown key "${key}"${hint ? ` (did you mean "${hint}"?)` : ''}`;
    });
}

// "#/properties/spec/properties/template/additionalProperties" -> the schema holding that keyword.
function schemaAt(root, schemaPath) {
  const tokens = schemaPath.replace(/^#\//, '').split('/').slice(0, -1);
  return tokens.reduce((node, t) => node?.[t.replace(/~1/g, '/').replace(/~0/g, '~')], root);
}
