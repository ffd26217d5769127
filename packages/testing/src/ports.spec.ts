import { existsSync, readFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { freePort } from './ports.js';

const listen = (port: number) =>
  new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
    const srv = createServer((s) => s.end());
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });

describe('freePort', () => {
  it('hands out distinct ports a service can listen on', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(20);
    const servers = await Promise.all(ports.slice(0, 3).map(listen));
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  it('never hands out a port inside the kernel ephemeral range (outgoing connections could take it), where the kernel says what that is', async () => {
    const file = '/proc/sys/net/ipv4/ip_local_port_range';
    if (!existsSync(file)) return; // not Linux: the kernel picks (port 0)
    const [low] = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low!);
    }
  });

  it('skips a candidate something else already listens on', async () => {
    const file = '/proc/sys/net/ipv4/ip_local_port_range';
    if (!existsSync(file)) return;
    const [ephemeralLow] = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
    const low = 10_000;
    const span = ephemeralLow! - low;
    // A port in the range that another server (not freePort) holds.
    let taken: ReturnType<typeof createServer> | undefined;
    let port = low + 50;
    for (; !taken; port++) taken = await listen(port).catch(() => undefined);
    port--;
    const random = jest.spyOn(Math, 'random').mockReturnValueOnce((port - low + 0.5) / span);
    try {
      const given = await freePort();
      expect(random).toHaveBeenCalled();
      expect(given).not.toBe(port);
      const srv = await listen(given); // free: would throw EADDRINUSE otherwise
      await new Promise((r) => srv.close(r));
      await expect(
        new Promise((resolve, reject) => connect(given, '127.0.0.1').once('connect', resolve).once('error', reject)),
      ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      random.mockRestore();
      await new Promise((r) => taken!.close(r));
    }
  });
});
