/**
 * Test support: reads fixtures (data files under test/fixtures) and compares
 * against golden files. `UPDATE_GOLDEN=1 npx jest` rewrites the goldens.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const FIXTURES = join(__dirname, 'fixtures');

export function fixtureText(rel: string): string {
  return readFileSync(join(FIXTURES, rel), 'utf8');
}

export function fixtureJson<T = unknown>(rel: string): T {
  return JSON.parse(fixtureText(rel)) as T;
}

export function fixtureYaml<T = unknown>(rel: string): T {
  return parse(fixtureText(rel)) as T;
}

/** The golden value stored at `rel`, written first when UPDATE_GOLDEN is set. */
export function golden(rel: string, actual: unknown): unknown {
  const path = join(FIXTURES, rel);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) {
    if (process.env.UPDATE_GOLDEN !== '1' && process.env.CI) throw new Error(`missing golden ${rel}`);
    writeFileSync(path, `${JSON.stringify(actual, null, 2)}\n`);
  }
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}
