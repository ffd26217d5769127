import { CliError } from './io.js';

/**
 * `--param k=v` given several times → `{k: v}`; the value may itself contain
 * `=`. Values are never echoed in errors (credentials travel this way too).
 */
export function parseKeyValues(pairs: readonly string[], option: string): Record<string, string> {
  const out: Record<string, string> = {};
  pairs.forEach((pair, n) => {
    const i = pair.indexOf('=');
    const key = i < 0 ? '' : pair.slice(0, i).trim();
    if (key === '') throw new CliError(`${option} #${n + 1} must be name=value`);
    if (Object.hasOwn(out, key)) throw new CliError(`${option} ${key} is given twice`);
    out[key] = pair.slice(i + 1);
  });
  return out;
}
