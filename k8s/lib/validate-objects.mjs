// All checks over one rendered overlay, in one list of problems.

import { envProblems } from './env-check.mjs';
import { modelProblems } from './model-check.mjs';
import { networkProblems } from './network-check.mjs';
import { refOf } from './objects.mjs';
import { policyProblems } from './policy-check.mjs';
import { strictProblems } from './strict-check.mjs';
import { wiringProblems } from './wiring-check.mjs';

/**
 * Runs every check: kubernetes-models schema, unknown keys, cross-references,
 * service environment, house policy, network policies.
 * @param {any[]} objects
 * @returns {Promise<Array<{where: string, message: string}>>}
 */
export async function validateObjects(objects) {
  const out = [];
  for (const obj of objects) {
    const where = refOf(obj);
    for (const message of await modelProblems(obj)) out.push({ where, message: `schema: ${message}` });
    for (const message of strictProblems(obj)) out.push({ where, message });
  }
  out.push(
    ...wiringProblems(objects),
    ...envProblems(objects),
    ...policyProblems(objects),
    ...networkProblems(objects),
  );
  return out;
}
