/**
 * For tests of connector types (here, in connector-runtime and in a
 * connector author's project): the ConnectorError a call must fail with.
 * No test framework needed: a call that succeeds, or fails with anything
 * else, throws an Error saying so.
 */
import { ConnectorError } from './connector-error.js';

/** Awaits `promise`, expects it to reject with a ConnectorError, and returns that error. */
export async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (err) {
    return asConnectorError(err);
  }
  throw new Error('expected the call to fail with a ConnectorError, but it succeeded');
}

/** Runs `fn`, expects it to throw a ConnectorError, and returns that error. */
export function thrown(fn: () => unknown): ConnectorError {
  try {
    fn();
  } catch (err) {
    return asConnectorError(err);
  }
  throw new Error('expected a ConnectorError, but nothing was thrown');
}

function asConnectorError(err: unknown): ConnectorError {
  if (err instanceof ConnectorError) return err;
  throw new Error(`expected a ConnectorError, got ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`, { cause: err });
}
