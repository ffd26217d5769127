/**
 * Worker thread of PasswordHasher: bcrypt (bcryptjs, pure JS) off the main
 * event loop, at a lower CPU priority (nice). Answers each request `{ id, op, … }` with `{ id, ok, value | error }`.
 */
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import bcrypt from 'bcryptjs';

// Linux keeps a nice value per thread: this lowers only this worker's, so a
// flood of password checks yields the CPU to the event loop serving requests.
try {
  // Never above the process's own nice (raising priority needs privileges).
  setPriority(Math.max(getPriority(), (workerData as { nice?: number } | undefined)?.nice ?? 0));
} catch {
  // Not allowed here (or not supported): run at the process's priority.
}

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
