import { Controller, Inject } from '@nestjs/common';
import { schedules } from '@af/contracts';
import type { ScheduleCommands } from '../app/schedule-commands.js';
import type { MonitorWatermarks } from '../app/monitor-watermarks.js';
import { toWireFire, toWireSchedule, toWireWatermark } from './schedule.mapper.js';

export const SCHEDULE_COMMANDS = Symbol('ScheduleCommands');
export const MONITOR_WATERMARKS = Symbol('MonitorWatermarks');

/** ScheduleService: thin mapping onto ScheduleCommands (which checks ownership and parses the definition). */
@Controller()
@schedules.ScheduleServiceControllerMethods()
export class ScheduleController implements schedules.ScheduleServiceController {
  constructor(
    @Inject(SCHEDULE_COMMANDS) private readonly commands: ScheduleCommands,
    @Inject(MONITOR_WATERMARKS) private readonly watermarks: MonitorWatermarks,
  ) {}

  async createSchedule(req: schedules.CreateScheduleRequest): Promise<schedules.CreateScheduleResponse> {
    const s = await this.commands.create({ userId: req.principal?.userId ?? '', teamIds: req.principal?.teamIds ?? [], definition: req.definition ?? {}, idempotencyKey: req.idempotencyKey });
    return { schedule: toWireSchedule(s) };
  }

  async getSchedule(req: schedules.GetScheduleRequest): Promise<schedules.GetScheduleResponse> {
    return { schedule: toWireSchedule(await this.commands.get(req.principal?.userId ?? '', req.scheduleId)) };
  }

  async listSchedules(req: schedules.ListSchedulesRequest): Promise<schedules.ListSchedulesResponse> {
    const page = await this.commands.list(req.principal?.userId ?? '', req.pageSize, req.pageToken);
    return { schedules: page.schedules.map(toWireSchedule), nextPageToken: page.nextPageToken };
  }

  async updateSchedule(req: schedules.UpdateScheduleRequest): Promise<schedules.UpdateScheduleResponse> {
    return { schedule: toWireSchedule(await this.commands.update(req.principal?.userId ?? '', req.scheduleId, req.definition ?? {})) };
  }

  async deleteSchedule(req: schedules.DeleteScheduleRequest): Promise<schedules.DeleteScheduleResponse> {
    await this.commands.delete(req.principal?.userId ?? '', req.scheduleId);
    return {};
  }

  async pauseSchedule(req: schedules.PauseScheduleRequest): Promise<schedules.PauseScheduleResponse> {
    return { schedule: toWireSchedule(await this.commands.pause(req.principal?.userId ?? '', req.scheduleId)) };
  }

  async resumeSchedule(req: schedules.ResumeScheduleRequest): Promise<schedules.ResumeScheduleResponse> {
    return { schedule: toWireSchedule(await this.commands.resume(req.principal?.userId ?? '', req.scheduleId)) };
  }

  async triggerSchedule(req: schedules.TriggerScheduleRequest): Promise<schedules.TriggerScheduleResponse> {
    const fired = await this.commands.runNow(req.principal?.userId ?? '', req.scheduleId, req.overlapPolicy);
    return { fireAt: fired.fireAt.toISOString(), runId: fired.runId };
  }

  async backfillSchedule(req: schedules.BackfillScheduleRequest): Promise<schedules.BackfillScheduleResponse> {
    const r = await this.commands.backfill(req.principal?.userId ?? '', req.scheduleId, { from: req.startTime, to: req.endTime, overlapPolicy: req.overlapPolicy });
    return { queuedFireTimes: r.queued.map((d) => d.toISOString()), alreadyRecorded: r.alreadyRecorded };
  }

  async listScheduleFires(req: schedules.ListScheduleFiresRequest): Promise<schedules.ListScheduleFiresResponse> {
    return { fires: (await this.commands.fires(req.principal?.userId ?? '', req.scheduleId, req.limit)).map(toWireFire) };
  }

  async listMonitorWatermarks(req: schedules.ListMonitorWatermarksRequest): Promise<schedules.ListMonitorWatermarksResponse> {
    return { watermarks: (await this.watermarks.list(req.principal?.userId ?? '', req.monitorId)).map(toWireWatermark) };
  }

  async setMonitorWatermark(req: schedules.SetMonitorWatermarkRequest): Promise<schedules.SetMonitorWatermarkResponse> {
    const w = await this.watermarks.set(req.principal?.userId ?? '', req.monitorId, { stepName: req.stepName, kind: req.watermarkType, value: req.watermarkValue, metadata: req.metadata ?? {} });
    return { watermark: toWireWatermark(w) };
  }

  async listAgentProfileSchedules(req: schedules.ListAgentProfileSchedulesRequest): Promise<schedules.ListAgentProfileSchedulesResponse> {
    const r = await this.commands.usingAgentProfile(req.principal?.userId ?? '', req.agentProfileId);
    return { schedules: r.own, otherUsersSchedules: r.others };
  }

  async listPlaybookSchedules(req: schedules.ListPlaybookSchedulesRequest): Promise<schedules.ListPlaybookSchedulesResponse> {
    const r = await this.commands.usingPlaybook(req.principal?.userId ?? '', req.playbookId);
    return { schedules: r.own, total: r.total };
  }

  async resetMonitorWatermarks(req: schedules.ResetMonitorWatermarksRequest): Promise<schedules.ResetMonitorWatermarksResponse> {
    return { reset: await this.watermarks.reset(req.principal?.userId ?? '', req.monitorId, req.stepName) };
  }
}
