/** Wires schedules into the orchestrator: their use cases (for gRPC) and, when enabled, this replica's dispatcher. */
import type { ServiceKit } from '@af/service-kit';
import { DataSource, type DataSourceOptions } from 'typeorm';

import type { AgentProfiles } from '../infra/agent-profiles.client.js';
import type { OrchestratorConfig } from '../config.js';
import type { PlaybookPlanLoader } from '../infra/planner.client.js';
import { ScheduleStore } from '../infra/schedule.store.js';
import { MonitorWatermarkStore } from '../infra/monitor-watermark.store.js';
import { MonitorWatermarks } from './monitor-watermarks.js';
import type { RunCommands } from './run-commands.js';
import { ScheduleCommands } from './schedule-commands.js';
import { ScheduleDispatcher } from './schedule-dispatcher.js';
import { scheduleFireRuns } from './schedule-runs.js';

export async function startSchedules(
  kit: ServiceKit<OrchestratorConfig>,
  runs: RunCommands,
  loadPlaybook: PlaybookPlanLoader,
  agents: AgentProfiles,
): Promise<{ commands: ScheduleCommands; watermarks: MonitorWatermarks }> {
  const { config } = kit;
  const clock = () => new Date();
  // The dispatcher's claims get connections of their own (one per worker): the run path's pool is
  // busy with executing runs during a burst, and a claim waiting for a connection is a fire dispatched late.
  let claimDb: DataSource | undefined;
  if (config.SCHEDULE_DISPATCH) {
    claimDb = new DataSource({ ...kit.db.options, poolSize: config.SCHEDULE_WORKERS, migrations: [], entities: [], migrationsRun: false } as DataSourceOptions);
    await claimDb.initialize();
  }
  const store = new ScheduleStore(kit, claimDb);
  if (config.SCHEDULE_DISPATCH) {
    const lag = kit.metrics.histogram('schedule_dispatch_lag_ms', 'schedule fire dispatch lag: ms from a fire being due to its run starting', [], [10, 50, 100, 500, 1000, 5000, 30_000, 300_000]);
    const dispatcher = new ScheduleDispatcher(
      store,
      scheduleFireRuns(runs, loadPlaybook, agents),
      kit.log,
      { clock, batch: config.SCHEDULE_BATCH, workers: config.SCHEDULE_WORKERS, pollMs: config.SCHEDULE_POLL_MS, bufferRecheckMs: config.SCHEDULE_BUFFER_RECHECK_MS },
      (ms) => lag.observe({}, ms),
    );
    dispatcher.start();
    // Closers run in reverse: the dispatcher stops, then its connections close.
    kit.onClose(() => claimDb!.destroy());
    kit.onClose(() => dispatcher.stop());
  }
  const commands = new ScheduleCommands(store, clock, loadPlaybook, agents);
  return { commands, watermarks: new MonitorWatermarks(commands, new MonitorWatermarkStore(kit)) };
}
