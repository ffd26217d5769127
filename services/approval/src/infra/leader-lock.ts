/**
 * Leader election across replicas with a PostgreSQL session advisory lock on
 * a connection of its own: whoever holds the lock leads; if that process dies
 * or its connection drops, PostgreSQL releases the lock and the next replica
 * to try takes over. `hold()` is called on every tick: it re-checks the
 * connection of a leader and tries to take the lock otherwise.
 */
import type { Logger } from '@af/service-kit';
import type { DataSource, QueryRunner } from 'typeorm';

export class LeaderLock {
  private runner?: QueryRunner;
  private leading = false;

  constructor(
    private readonly db: DataSource,
    private readonly name: string,
    private readonly log: Logger,
  ) {}

  get isLeader(): boolean {
    return this.leading;
  }

  /** True while this process leads (after this call). */
  async hold(): Promise<boolean> {
    try {
      if (!this.runner) {
        this.runner = this.db.createQueryRunner();
        await this.runner.connect();
      }
      if (this.leading) {
        await this.runner.query('SELECT 1');
        return true;
      }
      const [row] = (await this.runner.query('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [this.name])) as Array<{ ok: boolean }>;
      if (row?.ok) {
        this.leading = true;
        this.log.info({ lock: this.name }, 'leading');
      }
      return this.leading;
    } catch (err) {
      // The session (and with it the lock, if held) is gone: start over next time.
      if (this.leading) this.log.warn({ err, lock: this.name }, 'lost leadership');
      this.leading = false;
      // A live connection must not go back to the pool still holding the lock.
      await this.runner?.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
      await this.drop();
      return false;
    }
  }

  /** Give the lock up (shutdown): another replica takes over at its next try. */
  async release(): Promise<void> {
    if (this.runner && this.leading) {
      await this.runner.query('SELECT pg_advisory_unlock(hashtext($1))', [this.name]).catch(() => undefined);
    }
    this.leading = false;
    await this.drop();
  }

  private async drop(): Promise<void> {
    const r = this.runner;
    this.runner = undefined;
    await r?.release().catch(() => undefined);
  }
}
