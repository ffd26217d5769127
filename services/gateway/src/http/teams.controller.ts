/**
 * Teams (seed agent-factory-architecture "team sharing"): create one (you
 * become its owner), list yours, see a team's members, and — as an owner —
 * add members by user id or email, change their role, remove them. Team
 * membership is what lets a person decide approvals that allow team
 * decisions (`team_ids` + `allow_team_decisions` on the request). Teams you
 * are not in are 404; membership changes by a member who is not an owner are
 * 403; removing or demoting the last owner is 409. Rules: domain/teams.ts.
 */
import { Body, Controller, Delete, Get, Inject, Param, Post, Res, UseGuards } from '@nestjs/common';
import type { common } from '@af/contracts';
import type { Response } from 'express';
import type { TeamInvite } from '../infra/invites.repository.js';
import type { TeamDetail, TeamMember, TeamSummary } from '../infra/teams.repository.js';
import { AuthGuard, CurrentUser } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { AddMemberSchema, CreateTeamSchema, InviteSchema, TeamPathSchema } from './teams.schemas.js';
import { parseBody } from './validation.js';

function summaryView(t: TeamSummary) {
  return { id: t.id, name: t.name, role: t.role, member_count: t.memberCount, created_by: t.createdBy, created_at: t.createdAt.toISOString() };
}

function memberView(m: TeamMember) {
  return { user_id: m.userId, email: m.email, name: m.name, role: m.role, joined_at: m.joinedAt.toISOString() };
}

function inviteView(i: TeamInvite) {
  return { id: i.id, team_id: i.teamId, email: i.email, role: i.role, created_by: i.createdBy, created_at: i.createdAt.toISOString(), expires_at: i.expiresAt.toISOString() };
}

function teamView(t: TeamDetail) {
  return { ...summaryView(t), members: t.members.map(memberView) };
}

@Controller('api/v1/teams')
@UseGuards(AuthGuard)
export class TeamsController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Post()
  async create(@CurrentUser() principal: common.Principal, @Body() body: unknown) {
    const { name } = parseBody(CreateTeamSchema, body);
    const team = await this.deps.teams.create(principal.userId, name);
    this.deps.kit.log.info({ teamId: team.id, userId: principal.userId }, 'team created');
    return { team: teamView(team) };
  }

  @Get()
  async list(@CurrentUser() principal: common.Principal) {
    return { teams: (await this.deps.teams.listFor(principal.userId)).map(summaryView) };
  }

  @Get(':id')
  async get(@CurrentUser() principal: common.Principal, @Param() params: unknown) {
    const { id } = parseBody(TeamPathSchema, params);
    return { team: teamView(await this.deps.teams.detail(id, principal.userId)) };
  }

  /** 201 when the user was added; 200 when an existing member's role changed (or already was `role`). */
  @Post(':id/members')
  async addMember(@CurrentUser() principal: common.Principal, @Param() params: unknown, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const { id } = parseBody(TeamPathSchema, params);
    const input = parseBody(AddMemberSchema, body);
    const ref = input.user_id !== undefined ? { userId: input.user_id, field: 'user_id' } : { email: input.email!, field: 'email' };
    const { effect, userId } = await this.deps.teams.addMember(id, principal.userId, ref, input.role);
    if (effect !== 'unchanged') this.deps.kit.log.info({ teamId: id, userId, role: input.role, effect, by: principal.userId }, 'team membership changed');
    res.status(effect === 'added' ? 201 : 200);
    const team = await this.deps.teams.detail(id, principal.userId);
    return { member: memberView(team.members.find((m) => m.userId === userId)!), team: teamView(team) };
  }

  /** An owner removes a member, or a member leaves (their own id); the last owner stays. */
  @Delete(':id/members/:userId')
  async removeMember(@CurrentUser() principal: common.Principal, @Param() params: unknown) {
    const { id, userId } = parseBody(TeamPathSchema, params);
    await this.deps.teams.removeMember(id, principal.userId, userId!, 'userId');
    this.deps.kit.log.info({ teamId: id, userId, by: principal.userId }, 'team member removed');
    if (userId === principal.userId) return { removed: true, team: null };
    return { removed: true, team: teamView(await this.deps.teams.detail(id, principal.userId)) };
  }

  /**
   * An owner invites an email address without an account: the answer holds
   * the invitation's token, shown this once; whoever registers with it for
   * that address joins the team (the only way to register when SIGNUP=invite).
   */
  @Post(':id/invites')
  async invite(@CurrentUser() principal: common.Principal, @Param() params: unknown, @Body() body: unknown) {
    const { id } = parseBody(TeamPathSchema, params);
    const input = parseBody(InviteSchema, body);
    const { invite, token } = await this.deps.invites.create(id, principal.userId, input.email, input.role);
    this.deps.kit.log.info({ teamId: id, inviteId: invite.id, role: invite.role, by: principal.userId }, 'team invitation created');
    return { invite: inviteView(invite), invite_token: token };
  }

  /** The team's invitations not used, revoked or expired (owners). */
  @Get(':id/invites')
  async invites(@CurrentUser() principal: common.Principal, @Param() params: unknown) {
    const { id } = parseBody(TeamPathSchema, params);
    return { invites: (await this.deps.invites.pending(id, principal.userId)).map(inviteView) };
  }

  @Delete(':id/invites/:inviteId')
  async revokeInvite(@CurrentUser() principal: common.Principal, @Param() params: unknown) {
    const { id, inviteId } = parseBody(TeamPathSchema, params);
    await this.deps.invites.revoke(id, principal.userId, inviteId!);
    this.deps.kit.log.info({ teamId: id, inviteId, by: principal.userId }, 'team invitation revoked');
    return { revoked: true };
  }
}
