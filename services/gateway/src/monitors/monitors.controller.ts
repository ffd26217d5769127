import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import { schedules, type common } from '@af/contracts';
import { AppError, call, createGrpcClient } from '@af/service-kit';
import { AuthGuard, CurrentUser } from '../http/auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from '../http/deps.js';
import { parseBody } from '../http/validation.js';
import { scheduleView } from '../schedules/schedule.views.js';
import { MonitorBodySchema, SetWatermarkBodySchema } from './monitor.schemas.js';
import { monitorStats } from './monitor-stats.js';

const STATS_WINDOW = 500;

/**
 * Monitors (`/api/agent-factory/monitors`): schedules with a `monitor` block
 * (interval, active_hours, suppress_if_empty), served by the orchestrator's
 * ScheduleService. Owner only: another user's monitor is 404; so is a
 * schedule that is not a monitor.
 */
@Controller('api/agent-factory/monitors')
@UseGuards(AuthGuard)
export class MonitorsController {
  private readonly client: schedules.ScheduleServiceClient;

  constructor(@Inject(GATEWAY_DEPS) deps: GatewayDeps) {
    this.client = createGrpcClient('orchestrator', schedules.SCHEDULE_SERVICE_NAME, deps.kit.config.ORCHESTRATOR_URL, { auth: deps.serviceAuth, readyWaitMs: deps.kit.config.UPSTREAM_WAIT_MS });
  }

  @Post()
  async create(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const { monitor_config, ...rest } = parseBody(MonitorBodySchema, body);
    const { schedule } = await call(this.client.createSchedule({ principal, definition: { ...rest, monitor: monitor_config }, idempotencyKey: key ?? '' }));
    return { monitor: monitorView(schedule!) };
  }

  /** Your monitors (every page of your schedules, the monitors among them). */
  @Get()
  async list(@CurrentUser() principal: common.Principal) {
    const out: ReturnType<typeof monitorView>[] = [];
    let pageToken = '';
    do {
      const page = await call(this.client.listSchedules({ principal, pageSize: 200, pageToken }));
      out.push(...page.schedules.filter(isMonitor).map(monitorView));
      pageToken = page.nextPageToken;
    } while (pageToken);
    return { monitors: out };
  }

  @Get(':id')
  async get(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    return { monitor: monitorView(await this.monitor(principal, id)) };
  }

  @Put(':id')
  async update(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown) {
    await this.monitor(principal, id);
    const { monitor_config, ...rest } = parseBody(MonitorBodySchema, body);
    const { schedule } = await call(this.client.updateSchedule({ principal, scheduleId: id, definition: { ...rest, monitor: monitor_config } }));
    return { monitor: monitorView(schedule!) };
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    await this.monitor(principal, id);
    await call(this.client.deleteSchedule({ principal, scheduleId: id }));
  }

  @Post(':id/pause')
  @HttpCode(200)
  async pause(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    await this.monitor(principal, id);
    return { monitor: monitorView((await call(this.client.pauseSchedule({ principal, scheduleId: id }))).schedule!) };
  }

  @Post(':id/resume')
  @HttpCode(200)
  async resume(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    await this.monitor(principal, id);
    return { monitor: monitorView((await call(this.client.resumeSchedule({ principal, scheduleId: id }))).schedule!) };
  }

  /** One check now, whatever the interval and active hours. */
  @Post(':id/run-now')
  @HttpCode(202)
  async runNow(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    await this.monitor(principal, id);
    const fired = await call(this.client.triggerSchedule({ principal, scheduleId: id, overlapPolicy: '' }));
    return { fire_at: fired.fireAt, run_id: fired.runId };
  }

  /** Dashboard figures over the monitor's last 500 fires. */
  @Get(':id/stats')
  async stats(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    await this.monitor(principal, id);
    const { fires } = await call(this.client.listScheduleFires({ principal, scheduleId: id, limit: STATS_WINDOW }));
    const { watermarks } = await call(this.client.listMonitorWatermarks({ principal, monitorId: id }));
    return { stats: monitorStats(fires, STATS_WINDOW, watermarks) };
  }

  /** Current watermarks of every detection step. */
  @Get(':id/watermarks')
  async watermarks(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { watermarks } = await call(this.client.listMonitorWatermarks({ principal, monitorId: id }));
    return { watermarks: watermarks.map(watermarkView) };
  }

  /** Set one step's watermark (400 when the value does not fit the kind, or the step keeps another kind). */
  @Put(':id/watermarks/:step')
  async setWatermark(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Param('step') step: string, @Body() body: unknown) {
    const b = parseBody(SetWatermarkBodySchema, body);
    const { watermark } = await call(this.client.setMonitorWatermark({ principal, monitorId: id, stepName: step, watermarkType: b.watermark_type, watermarkValue: b.watermark_value, metadata: b.metadata ?? {} }));
    return { watermark: watermarkView(watermark!) };
  }

  /** Forget the watermarks (`?step=` one step's): the next check sees everything as new. */
  @Post(':id/reset-watermarks')
  @HttpCode(200)
  async resetWatermarks(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Query('step') step?: string) {
    const { reset } = await call(this.client.resetMonitorWatermarks({ principal, monitorId: id, stepName: step ?? '' }));
    return { reset };
  }

  private async monitor(principal: common.Principal, id: string): Promise<schedules.Schedule> {
    const { schedule } = await call(this.client.getSchedule({ principal, scheduleId: id }));
    if (!schedule || !isMonitor(schedule)) throw AppError.notFound('monitor', id);
    return schedule;
  }
}

function isMonitor(s: schedules.Schedule): boolean {
  return Boolean(s.definition && typeof s.definition === 'object' && 'monitor' in s.definition && s.definition.monitor);
}

function monitorView(s: schedules.Schedule) {
  const { definition, ...rest } = scheduleView(s);
  const { monitor, ...def } = definition as Record<string, unknown>;
  return { ...rest, monitor_config: monitor, definition: def };
}

function watermarkView(w: schedules.MonitorWatermark) {
  return {
    step_name: w.stepName,
    watermark_type: w.watermarkType,
    watermark_value: w.watermarkValue,
    metadata: w.metadata ?? {},
    last_checked_at: w.lastCheckedAt,
    items_found_last: w.itemsFoundLast,
    updated_at: w.updatedAt,
  };
}
