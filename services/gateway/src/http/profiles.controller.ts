/**
 * Agent profile routes: profiles (CRUD, duplicate, templates), attached
 * playbooks, team sharing, @handle resolution and the agents a user may
 * mention. The planner owns profiles and decides who may do what: a profile
 * you may not see is 404, one you see but may not change is 403, a handle you
 * already use is 409. Static paths come before `:id`.
 */
import { randomUUID } from 'node:crypto';
import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Put, Query, Res, UseGuards } from '@nestjs/common';
import { AppError, call } from '@af/service-kit';
import type { common } from '@af/contracts';
import type { Response } from 'express';
import { AuthGuard, CurrentUser } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { AttachPlaybookSchema, ProfileBodySchema, ProfileOverridesSchema, ShareSchema, UpdateShareSchema } from './profiles.schemas.js';
import { availableAgentView, profileView, shareView, skillView, templateView } from './profiles.views.js';
import { parseBody } from './validation.js';

const key = (k?: string) => k?.slice(0, 200) || randomUUID();

@Controller('api/agent-factory')
@UseGuards(AuthGuard)
export class ProfilesController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  /** A method, not a getter: the OpenAPI spec reads the prototype's members without an instance. */
  private client() {
    return this.deps.clients.profiles;
  }

  @Post('profiles')
  async create(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Headers('idempotency-key') idem?: string) {
    const fields = parseBody(ProfileBodySchema, body);
    const { profile } = await call(this.client().createProfile({ principal, fields, idempotencyKey: key(idem) }));
    return { profile: profileView(profile!) };
  }

  @Get('profiles')
  async list(@CurrentUser() principal: common.Principal) {
    const { profiles } = await call(this.client().listProfiles({ principal }));
    return { profiles: profiles.map(profileView) };
  }

  @Get('profiles/templates')
  async templates(@CurrentUser() principal: common.Principal) {
    const { templates } = await call(this.client().listProfileTemplates({ principal }));
    return { templates: templates.map(templateView) };
  }

  /** A profile of yours from a template; the answer names the connectors to bind and the playbooks to attach. */
  @Post('profiles/from-template/:templateId')
  async fromTemplate(@CurrentUser() principal: common.Principal, @Param('templateId') templateId: string, @Body() body: unknown, @Headers('idempotency-key') idem?: string) {
    const fields = parseBody(ProfileOverridesSchema, body);
    const out = await call(this.client().createProfileFromTemplate({ principal, templateId, fields, idempotencyKey: key(idem) }));
    return { profile: profileView(out.profile!), connectors_to_bind: out.connectorsToBind, playbooks_to_attach: out.playbooksToAttach };
  }

  @Get('profiles/:id')
  async get(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { profile } = await call(this.client().getProfile({ principal, id }));
    return { profile: profileView(profile!) };
  }

  @Put('profiles/:id')
  async update(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown, @Headers('idempotency-key') idem?: string) {
    const fields = parseBody(ProfileBodySchema, body);
    const { profile } = await call(this.client().updateProfile({ principal, id, fields, idempotencyKey: key(idem) }));
    return { profile: profileView(profile!) };
  }

  @Delete('profiles/:id')
  @HttpCode(204)
  async remove(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    await call(this.client().deleteProfile({ principal, id }));
  }

  @Post('profiles/:id/duplicate')
  async duplicate(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown, @Headers('idempotency-key') idem?: string) {
    const fields = parseBody(ProfileOverridesSchema, body);
    const { profile } = await call(this.client().duplicateProfile({ principal, id, fields, idempotencyKey: key(idem) }));
    return { profile: profileView(profile!) };
  }

  @Get('profiles/:id/playbooks')
  async playbooks(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { profile } = await call(this.client().getProfile({ principal, id }));
    return { playbooks: profile!.skills.filter((s) => s.skillType === 'playbook').map(skillView) };
  }

  /** Attach one of your playbooks; 400 naming each step whose connector is not bound to the profile. */
  @Post('profiles/:id/playbooks')
  async attach(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown, @Headers('idempotency-key') idem?: string) {
    const input = parseBody(AttachPlaybookSchema, body);
    const out = await call(
      this.client().attachPlaybook({ principal, profileId: id, playbookId: input.playbook_id, priority: input.priority, parameters: input.parameters, idempotencyKey: key(idem) }),
    );
    return { profile: profileView(out.profile!), warnings: out.warnings };
  }

  @Delete('profiles/:id/playbooks/:playbookId')
  @HttpCode(204)
  async detach(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Param('playbookId') playbookId: string) {
    await call(this.client().detachPlaybook({ principal, profileId: id, playbookId }));
  }

  /** Share with one of your teams: 201 when new, 200 when an existing share changed. */
  @Post('profiles/:id/share')
  async share(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response, @Headers('idempotency-key') idem?: string) {
    const { team_id, ...settings } = parseBody(ShareSchema, body);
    const out = await call(this.client().shareProfile({ principal, profileId: id, teamId: team_id, settings, idempotencyKey: key(idem), updateOnly: false }));
    res.status(out.created ? 201 : 200);
    return { share: shareView(out.share!) };
  }

  @Put('profiles/:id/share/:teamId')
  async updateShare(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Param('teamId') teamId: string, @Body() body: unknown, @Headers('idempotency-key') idem?: string) {
    const settings = parseBody(UpdateShareSchema, body);
    const out = await call(this.client().shareProfile({ principal, profileId: id, teamId, settings, idempotencyKey: key(idem), updateOnly: true }));
    return { share: shareView(out.share!) };
  }

  @Delete('profiles/:id/share/:teamId')
  @HttpCode(204)
  async unshare(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Param('teamId') teamId: string) {
    await call(this.client().unshareProfile({ principal, profileId: id, teamId }));
  }

  @Get('profiles/:id/shares')
  async shares(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { shares } = await call(this.client().listProfileShares({ principal, profileId: id }));
    return { shares: shares.map(shareView) };
  }

  @Get('teams/:teamId/agents')
  async teamAgents(@CurrentUser() principal: common.Principal, @Param('teamId') teamId: string) {
    const { agents } = await call(this.client().listTeamAgents({ principal, teamId }));
    return { agents: agents.map((a) => availableAgentView(a, new Map())) };
  }

  /** `?handle=` (with or without `@`): your own agent first, then one shared with your teams; 404 lists close handles. */
  @Get('resolve-handle')
  async resolve(@CurrentUser() principal: common.Principal, @Query('handle') handle?: string) {
    if (typeof handle !== 'string' || !handle.trim()) throw AppError.invalid('handle', 'is required (?handle=nonprofit-investigator)');
    const r = await call(this.client().resolveHandle({ principal, handle }));
    return { agent_profile_id: r.agentProfileId, handle: r.handle, name: r.name, icon: r.icon || null, owner: r.owner, team_id: r.teamId || null };
  }

  @Get('available-agents')
  async available(@CurrentUser() principal: common.Principal) {
    const [{ agents }, teams] = await Promise.all([call(this.client().listAvailableAgents({ principal })), this.deps.teams.listFor(principal.userId)]);
    const names = new Map(teams.map((t) => [t.id.toLowerCase(), t.name]));
    return { agents: agents.map((a) => availableAgentView(a, names)) };
  }
}
