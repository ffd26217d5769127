/**
 * What an HTTP client may read of an error. Transport failures between the
 * gateway and a service carry grpc-js text such as `No connection
 * established. Last error: connect ECONNREFUSED 127.0.0.1:50051`; that names
 * internal addresses, so a client gets a plain sentence naming the service
 * instead (the detail is logged). Any other 5xx message is scrubbed of
 * addresses too; 4xx messages describe the caller's own input and pass
 * unchanged.
 */
import { scrubAddresses } from '@af/service-kit';

/** The fields of an AppError this module needs. */
export interface ErrorFacts {
  code: string;
  message: string;
  /** The error came from the transport, not from the peer's code. */
  transport: boolean;
}

/** The message a client sees for an error answered with `status`; `service` is the gateway's peer, when known. */
export function publicMessage(err: ErrorFacts, status: number, service?: string): string {
  if (err.transport) {
    const who = service ? `the ${service} service` : 'a backend service';
    switch (err.code) {
      case 'UNAVAILABLE':
        return `${who} is unavailable; try again shortly`;
      case 'DEADLINE_EXCEEDED':
        return `${who} did not answer in time; try again shortly`;
      case 'CANCELLED':
        return `the call to ${who} was cancelled`;
      case 'RESOURCE_EXHAUSTED':
        return `${who} is overloaded; try again shortly`;
      case 'PAYLOAD_TOO_LARGE':
        return `${scrubAddresses(err.message)} (between the gateway and ${who})`;
      default:
        return `${who} failed to answer`;
    }
  }
  return status >= 500 ? scrubAddresses(err.message) : err.message;
}
