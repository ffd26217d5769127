import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { AppError, call } from '@af/service-kit';
import type { common } from '@af/contracts';
import { AuthGuard, CurrentUser } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { PlaybookYamlSchema } from './schemas.js';
import { parseBody } from './validation.js';
import { actionView, playbookView } from './views.js';
import { playbookValidationView, refusedValidationView } from './playbook-validation.view.js';

@Controller('api/agent-factory/playbooks')
@UseGuards(AuthGuard)
export class PlaybooksController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Post('validate')
  @HttpCode(200)
  async validate(@CurrentUser() principal: common.Principal, @Body() body: unknown) {
    const { yaml } = parseBody(PlaybookYamlSchema, body);
    try {
      return playbookValidationView(await call(this.deps.clients.planner.compilePlaybook({ principal, yaml, validateOnly: true })));
    } catch (err) {
      if (err instanceof AppError && err.code === 'INVALID_ARGUMENT') return refusedValidationView(err.violations.map((v) => ({ ...v, code: v.code ?? 'invalid_field' })));
      throw err;
    }
  }

  @Post()
  async create(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const { yaml } = parseBody(PlaybookYamlSchema, body);
    const { playbook } = await call(this.deps.clients.planner.createPlaybook({ principal, yaml, idempotencyKey: key ?? '' }));
    return { playbook: playbookView(playbook!) };
  }

  @Get()
  async list(@CurrentUser() principal: common.Principal) {
    const { playbooks } = await call(this.deps.clients.planner.listPlaybooks({ principal }));
    return { playbooks: playbooks.map(playbookView) };
  }

  @Get(':id')
  async get(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { playbook } = await call(this.deps.clients.planner.getPlaybook({ principal, id }));
    return { playbook: playbookView(playbook!) };
  }
}

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
