import { Controller, Get, Inject, Param, Query, UseGuards } from '@nestjs/common';
import { call } from '@af/service-kit';
import type { common } from '@af/contracts';
import { AuthGuard, CurrentUser } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { actionView } from './views.js';

@Controller('api/agent-factory/actions')
@UseGuards(AuthGuard)
export class ActionsController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Get()
  async list(@CurrentUser() principal: common.Principal, @Query('category') category?: string) {
    const { actions } = await call(this.deps.clients.planner.listActions({ principal, category: category ?? '' }));
    return { actions: actions.map(actionView) };
  }

  @Get(':name')
  async get(@CurrentUser() principal: common.Principal, @Param('name') name: string) {
    const { action } = await call(this.deps.clients.planner.getAction({ principal, name }));
    return { action: actionView(action!) };
  }
}
