/**
 * Tags every error of a gRPC client with the service it called, so the
 * HTTP error filter can say "the planner service is unavailable" instead of
 * passing on grpc-js transport text (which names internal addresses).
 */
import { catchError, isObservable, throwError } from 'rxjs';
import type { Clients } from './clients.js';

/** Property set on a failed call's error: the called service's name. */
export const SERVICE_OF_ERROR = 'afService';

const SERVICE_NAMES: Record<keyof Clients, string> = {
  planner: 'planner',
  registry: 'planner',
  profiles: 'planner',
  query: 'planner',
  orchestrator: 'orchestrator',
  connectors: 'connector-runtime',
  plugins: 'connector-runtime',
  approvals: 'approval',
};

function tag(err: unknown, service: string): unknown {
  if (err !== null && typeof err === 'object' && !(SERVICE_OF_ERROR in err)) {
    Object.defineProperty(err, SERVICE_OF_ERROR, { value: service, enumerable: false });
  }
  return err;
}

function labelled<T extends object>(client: T, service: string): T {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const method = Reflect.get(target, prop, receiver);
      if (typeof method !== 'function') return method;
      return (...args: unknown[]) => {
        const result: unknown = method.apply(target, args);
        return isObservable(result) ? result.pipe(catchError((err: unknown) => throwError(() => tag(err, service)))) : result;
      };
    },
  });
}

/** The same clients, each error tagged with the service's name (see {@link SERVICE_OF_ERROR}). */
export function labelClients(clients: Clients): Clients {
  const out = {} as Record<keyof Clients, object>;
  for (const key of Object.keys(clients) as Array<keyof Clients>) out[key] = labelled(clients[key], SERVICE_NAMES[key]);
  return out as unknown as Clients;
}

/** The service a failed call went to, when the error (or its cause) was tagged. */
export function serviceOf(err: unknown): string | undefined {
  for (let e: unknown = err, hops = 0; e && typeof e === 'object' && hops < 5; e = (e as { cause?: unknown }).cause, hops++) {
    const s = (e as Record<string, unknown>)[SERVICE_OF_ERROR];
    if (typeof s === 'string') return s;
  }
  return undefined;
}
