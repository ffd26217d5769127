import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Where ports for test services come from: below the kernel's ephemeral
 * range when we can tell what it is (Linux), so an outgoing connection of any
 * process — a pooled Postgres connection, a NATS client — can never be handed
 * a service's port as its local port while that service is down. A killed
 * replica restarted on its old port (the chaos test) would otherwise fail
 * now and then with EADDRINUSE. Elsewhere the kernel picks (port 0).
 */
const RANGE = ((): { low: number; high: number } | undefined => {
  try {
    const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (!ephemeralLow || !Number.isInteger(ephemeralLow)) return undefined;
    const low = 10_000;
    const high = ephemeralLow - 1;
    return high - low >= 1_000 ? { low, high } : undefined;
  } catch {
    return undefined;
  }
})();

/** Ports this process handed out already (two services of one stack never get the same one). */
const handedOut = new Set<number>();

/** A TCP port free on 127.0.0.1 right now (outside the ephemeral range where possible). */
export async function freePort(): Promise<number> {
  if (RANGE) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const candidate = RANGE.low + Math.floor(Math.random() * (RANGE.high - RANGE.low + 1));
      if (handedOut.has(candidate)) continue;
      if (await canListen(candidate)) {
        handedOut.add(candidate);
        return candidate;
      }
    }
  }
  const port = await listenOnce(0);
  handedOut.add(port);
  return port;
}

function canListen(port: number): Promise<boolean> {
  return listenOnce(port).then(
    () => true,
    () => false,
  );
}

/** Listens on `port` (0: any) on 127.0.0.1, closes, and answers the port. */
function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      const { port: bound } = srv.address() as { port: number };
      srv.close(() => resolve(bound));
    });
  });
}
