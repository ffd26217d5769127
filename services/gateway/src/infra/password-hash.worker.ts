/**
 * Worker thread of PasswordHasher: bcrypt (bcryptjs, pure JS) off the main
 * event loop. Answers each request `{ id, op, … }` with `{ id, ok, value | error }`.
 */
import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';

export type HashJob = { op: 'hash'; password: string; rounds: number } | { op: 'verify'; password: string; hash: string };
export type HashReply = { id: number; ok: true; value: string | boolean } | { id: number; ok: false; error: string };

parentPort?.on('message', (msg: HashJob & { id: number }) => {
  let reply: HashReply;
  try {
    const value = msg.op === 'hash' ? bcrypt.hashSync(msg.password, msg.rounds) : bcrypt.compareSync(msg.password, msg.hash);
    reply = { id: msg.id, ok: true, value };
  } catch (err) {
    // Never echo the input: the message may contain the password.
    reply = { id: msg.id, ok: false, error: err instanceof Error ? err.name : 'error' };
  }
  parentPort!.postMessage(reply);
});
