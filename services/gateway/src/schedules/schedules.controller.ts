import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import { schedules, type common } from '@af/contracts';
import { AppError, call, createGrpcClient } from '@af/service-kit';
import { AuthGuard, CurrentUser } from '../http/auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from '../http/deps.js';
import { parseBody } from '../http/validation.js';
import { BackfillBodySchema, RunNowBodySchema, ScheduleDefinitionBodySchema } from './schedule.schemas.js';
import { fireView, scheduleView } from './schedule.views.js';

/**
 * Schedules (`/api/agent-factory/schedules`), served by the orchestrator's
 * ScheduleService. Owner only: another user's schedule is 404 like a missing
 * one. Bad definitions are 400 naming the field (`spec.cron`, `overlap_policy`).
 */
@Controller('api/agent-factory/schedules')
@UseGuards(AuthGuard)
export class SchedulesController {
  private readonly client: schedules.ScheduleServiceClient;

  constructor(@Inject(GATEWAY_DEPS) deps: GatewayDeps) {
    this.client = createGrpcClient('orchestrator', schedules.SCHEDULE_SERVICE_NAME, deps.kit.config.ORCHESTRATOR_URL, { auth: deps.serviceAuth, readyWaitMs: deps.kit.config.UPSTREAM_WAIT_MS });
  }

  @Post()
  async create(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const definition = parseBody(ScheduleDefinitionBodySchema, body);
    const { schedule } = await call(this.client.createSchedule({ principal, definition, idempotencyKey: key ?? '' }));
    return { schedule: scheduleView(schedule!) };
  }

  @Get()
  async list(@CurrentUser() principal: common.Principal, @Query('page_size') pageSize?: string, @Query('page_token') pageToken?: string) {
    const page = await call(this.client.listSchedules({ principal, pageSize: intParam(pageSize, 'page_size'), pageToken: pageToken ?? '' }));
    return { schedules: page.schedules.map(scheduleView), next_page_token: page.nextPageToken || null };
  }

  @Get(':id')
  async get(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { schedule } = await call(this.client.getSchedule({ principal, scheduleId: id }));
    return { schedule: scheduleView(schedule!) };
  }

  /** Replaces the definition (PUT: the whole of it; omitted fields take their defaults). */
  @Put(':id')
  async update(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown) {
    const definition = parseBody(ScheduleDefinitionBodySchema, body);
    const { schedule } = await call(this.client.updateSchedule({ principal, scheduleId: id, definition }));
    return { schedule: scheduleView(schedule!) };
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    await call(this.client.deleteSchedule({ principal, scheduleId: id }));
  }

  @Post(':id/pause')
  @HttpCode(200)
  async pause(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { schedule } = await call(this.client.pauseSchedule({ principal, scheduleId: id }));
    return { schedule: scheduleView(schedule!) };
  }

  @Post(':id/resume')
  @HttpCode(200)
  async resume(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { schedule } = await call(this.client.resumeSchedule({ principal, scheduleId: id }));
    return { schedule: scheduleView(schedule!) };
  }

  /** 202: the fire is queued; its run id is known at once (derived from schedule and fire time). */
  @Post(':id/run-now')
  @HttpCode(202)
  async runNow(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown) {
    const { overlap_policy } = parseBody(RunNowBodySchema, body);
    const fired = await call(this.client.triggerSchedule({ principal, scheduleId: id, overlapPolicy: overlap_policy ?? '' }));
    return { fire_at: fired.fireAt, run_id: fired.runId };
  }

  @Post(':id/backfill')
  @HttpCode(202)
  async backfill(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown) {
    const b = parseBody(BackfillBodySchema, body);
    const r = await call(this.client.backfillSchedule({ principal, scheduleId: id, startTime: b.start_time, endTime: b.end_time, overlapPolicy: b.overlap_policy ?? '' }));
    return { queued_fire_times: r.queuedFireTimes, already_recorded: r.alreadyRecorded };
  }

  @Get(':id/fires')
  async fires(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Query('limit') limit?: string) {
    const { fires } = await call(this.client.listScheduleFires({ principal, scheduleId: id, limit: intParam(limit, 'limit') }));
    return { fires: fires.map(fireView) };
  }
}

function intParam(value: string | undefined, field: string): number {
  if (value === undefined || value === '') return 0;
  if (!/^\d{1,4}$/.test(value)) throw AppError.invalid(field, 'must be a whole number');
  return Number(value);
}
