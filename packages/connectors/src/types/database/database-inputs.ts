/**
 * Declared-parameter handling shared by the `database` and `file_parser`
 * types: checking the declarations when a definition is parsed, and checking,
 * defaulting and coercing a call's inputs against them. Generic on purpose
 * (the `rest_api` equivalents are private to `rest-request.ts`).
 */
import type { DefinitionIssue } from '../../connector-definition.rules.js';
import type { EndpointParameter } from '../../connector-definition.schema.js';
import { ConnectorError, type ConnectorFieldViolation } from '../../connector-error.js';
import { coerceParameterValue } from '../../parameter-values.js';

/** Duplicate names and defaults that do not fit their type, reported at `at[i]`. */
export function checkParameterDeclarations(
  params: readonly EndpointParameter[],
  at: string,
  errors: DefinitionIssue[],
): void {
  const seen = new Set<string>();
  params.forEach((p, i) => {
    if (seen.has(p.name))
      errors.push({ field: `${at}[${i}].name`, reason: `duplicate parameter "${p.name}"` });
    seen.add(p.name);
    if (p.default !== undefined && p.default !== null) {
      const result = coerceParameterValue(p.type, p.default);
      if (!result.ok) {
        errors.push({
          field: `${at}[${i}].default`,
          reason: `does not fit type ${p.type}: ${result.reason}`,
        });
      }
    }
  });
}

/**
 * The call's values by parameter name: unknown inputs refused, defaults
 * applied, required ones enforced, each coerced to its declared type. A
 * parameter with no value and no default is absent from the map. Every
 * violation is listed in one INVALID_ARGUMENT error.
 */
export function resolveDeclaredInputs(
  params: readonly EndpointParameter[],
  endpointName: string,
  inputs: unknown,
): Map<string, unknown> {
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
    throw ConnectorError.invalid('inputs', 'must be an object of parameter values');
  }
  const given = inputs as Record<string, unknown>;
  const violations: ConnectorFieldViolation[] = [];
  const declared = new Set(params.map((p) => p.name));
  for (const key of Object.keys(given)) {
    if (!declared.has(key)) {
      violations.push({
        field: `inputs.${key}`,
        reason: `is not a parameter of endpoint "${endpointName}" (declared: ${[...declared].join(', ') || 'none'})`,
      });
    }
  }
  const values = new Map<string, unknown>();
  for (const param of params) {
    const value = Object.hasOwn(given, param.name) ? given[param.name] : undefined;
    const raw = value === undefined || value === null ? param.default : value;
    if (raw === undefined || raw === null) {
      if (param.required) {
        violations.push({
          field: `inputs.${param.name}`,
          reason: `is required by endpoint "${endpointName}"`,
        });
      }
      continue;
    }
    const coerced = coerceParameterValue(param.type, raw);
    if (coerced.ok) values.set(param.name, coerced.value);
    else violations.push({ field: `inputs.${param.name}`, reason: coerced.reason });
  }
  if (violations.length > 0) throw invalidInputs(endpointName, violations);
  return values;
}

/** One INVALID_ARGUMENT error listing every violation. */
export function invalidInputs(endpointName: string, violations: ConnectorFieldViolation[]): ConnectorError {
  const summary = violations.map((v) => `${v.field} ${v.reason}`).join('; ');
  return new ConnectorError('INVALID_ARGUMENT', `invalid inputs for endpoint "${endpointName}": ${summary}`, {
    violations,
  });
}

/** The endpoint by name, or NOT_FOUND listing the names that exist. */
export function findEndpoint<E>(def: { id: string; endpoints: Record<string, E> }, endpointName: string): E {
  if (!Object.hasOwn(def.endpoints, endpointName)) {
    throw new ConnectorError(
      'NOT_FOUND',
      `connector "${def.id}" has no endpoint "${endpointName}"; it has ${Object.keys(def.endpoints).join(', ')}`,
    );
  }
  return def.endpoints[endpointName] as E;
}
