import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dispatcher's claim walks due schedules in (due_at, id) order and each
 * worker goes on from its last claim's (due_at, id): the partial index holds
 * both, so the walk starts where the worker stopped.
 */
export class SchedulesDueKeyset1766300000000 implements MigrationInterface {
  name = 'SchedulesDueKeyset1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX schedules_due_id ON schedules (due_at, id) WHERE NOT paused AND due_at IS NOT NULL');
    await q.query('DROP INDEX schedules_due');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('CREATE INDEX schedules_due ON schedules (due_at) WHERE NOT paused AND due_at IS NOT NULL');
    await q.query('DROP INDEX schedules_due_id');
  }
}
