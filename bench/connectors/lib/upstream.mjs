// The upstream the connector benchmarks call: @af/testing's fixture HTTP
// server on 127.0.0.1, in a child process of its own so its work does not
// share the benchmark's event loop. Prints {"url": …} on stdout when ready;
// exits when its stdin closes (the parent ended) or on SIGTERM.
//
//   node bench/connectors/lib/upstream.mjs
import { startFixtureServer } from '@af/testing';

/** 20 FEC schedule_a-like rows (~4 KB of JSON), the same for every call. */
export const PAGE = {
  results: Array.from({ length: 20 }, (_, i) => ({
    contributor_name: `DONOR, NUMBER ${i}`,
    contribution_receipt_amount: 100 + i * 25,
    contribution_receipt_date: `2024-0${(i % 9) + 1}-1${i % 10}`,
    committee: { name: `COMMITTEE ${i % 4}`, committee_id: `C0000${i}` },
    memo_text: 'lorem ipsum dolor sit amet '.repeat(2),
  })),
  pagination: { count: 20000, per_page: 20, last_indexes: { last_index: '4052020240301' } },
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startFixtureServer();
  server.route('GET', '/v1/schedules/schedule_a/', { json: PAGE });
  process.stdout.write(JSON.stringify({ url: server.url }) + '\n');
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.stdin.on('end', stop);
  process.stdin.resume();
  process.on('SIGTERM', stop);
}
