/** Shared by the unit and integration specs: the ConnectorError a call must fail with. */
import { ConnectorError } from '../src/domain/connector-error.js';

/** Awaits `promise`, expects it to reject with a ConnectorError, and returns that error. */
export async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ConnectorError);
    return err as ConnectorError;
  }
  throw new Error('expected the call to fail');
}

/** Runs `fn`, expects it to throw a ConnectorError, and returns that error. */
export function thrown(fn: () => unknown): ConnectorError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConnectorError);
    return err as ConnectorError;
  }
  throw new Error('expected a ConnectorError');
}
