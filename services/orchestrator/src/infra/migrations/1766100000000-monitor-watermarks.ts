import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `agent_monitor_watermarks`: per monitor (a schedule with a monitor block)
 * and detection step, what that step saw last (timestamp, cursor, hash or
 * offset), so the next cycle reports only what is new.
 */
export class MonitorWatermarks1766100000000 implements MigrationInterface {
  name = 'MonitorWatermarks1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agent_monitor_watermarks (
        monitor_id uuid NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
        step_name text NOT NULL,
        watermark_type text NOT NULL CHECK (watermark_type IN ('timestamp', 'cursor', 'hash', 'offset')),
        watermark_value text NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}',
        last_checked_at timestamptz NOT NULL DEFAULT now(),
        items_found_last int NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (monitor_id, step_name)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE agent_monitor_watermarks');
  }
}
