import { randomUUID } from 'node:crypto';
import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import { AppError, call } from '@af/service-kit';
import type { common, planner } from '@af/contracts';
import { AuthGuard, CurrentUser } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { PlaybookYamlSchema, TestPlaybookSchema, ValidateStoredPlaybookSchema } from './schemas.js';
import { assertInputsFit, parseBody } from './validation.js';
import { playbookView, runView } from './views.js';
import { playbookValidationView, refusedValidationView } from './playbook-validation.view.js';

/**
 * Stored playbooks (seed §3 "Playbook Endpoints"), per owner: another user's
 * playbook is 404 like a missing one. Every change is a new version; runs
 * keep the version they were compiled from.
 */
@Controller('api/agent-factory/playbooks')
@UseGuards(AuthGuard)
export class PlaybooksController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Post('validate')
  @HttpCode(200)
  async validate(@CurrentUser() principal: common.Principal, @Body() body: unknown) {
    const { yaml } = parseBody(PlaybookYamlSchema, body);
    return validation(() => call(this.deps.clients.planner.compilePlaybook({ principal, yaml, validateOnly: true })));
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
  async get(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Query('revision') revision?: string) {
    const { playbook } = await call(this.deps.clients.planner.getPlaybook({ principal, id, revision: revisionParam(revision) }));
    return { playbook: playbookView(playbook!) };
  }

  /** A new version; the YAML's `id` must be the path's (400 `yaml.id` otherwise). Unchanged YAML stores nothing (`changed: false`). */
  @Put(':id')
  async update(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const { yaml } = parseBody(PlaybookYamlSchema, body);
    const { playbook, changed } = await call(this.deps.clients.planner.updatePlaybook({ principal, id, yaml, idempotencyKey: key ?? '' }));
    return { playbook: playbookView(playbook!), changed };
  }

  /** Removes the playbook and its versions; 409 naming the schedules / profiles that still use it. */
  @Delete(':id')
  @HttpCode(204)
  async remove(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    await call(this.deps.clients.planner.deletePlaybook({ principal, id }));
  }

  @Get(':id/versions')
  async versions(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { versions } = await call(this.deps.clients.planner.listPlaybookVersions({ principal, id }));
    return { versions: versions.map(playbookView) };
  }

  /** Validates the stored playbook, or `{yaml}` meant to replace it (its `id` must be the path's). */
  @Post(':id/validate')
  @HttpCode(200)
  async validateStored(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown) {
    const { yaml } = parseBody(ValidateStoredPlaybookSchema, body);
    const { planner } = this.deps.clients;
    const stored = await call(planner.getPlaybook({ principal, id, revision: 0 }));
    const text = yaml ?? stored.playbook!.yaml;
    return validation(async () => {
      const compiled = await call(planner.compilePlaybook({ principal, yaml: text, validateOnly: true }));
      if (compiled.valid && compiled.plan?.id !== id) throw AppError.invalid('yaml.id', `is '${compiled.plan?.id ?? ''}' but this playbook is '${id}'`, 'id_mismatch');
      return compiled;
    });
  }

  /**
   * A dry run of the stored playbook with sample `inputs`: side-effecting
   * steps are skipped with reason `dry_run` (their would-be inputs on the
   * `node_complete` frame) unless `allow_side_effects: true`. Returns the run.
   */
  @Post(':id/test')
  async test(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const input = parseBody(TestPlaybookSchema, body);
    assertInputsFit(input.inputs, this.deps.kit.config.RUN_INPUT_MAX_BYTES);
    const { planner, orchestrator } = this.deps.clients;
    const compiled = await call(
      planner.compileStoredPlaybook({ principal, id, revision: input.playbook_revision ?? 0, dryRun: true, allowSideEffects: input.allow_side_effects }),
    );
    const { run } = await call(
      orchestrator.startRun({
        principal,
        plan: compiled.plan,
        inputs: input.inputs,
        idempotencyKey: key?.slice(0, 200) || randomUUID(),
        runContext: '',
        outputContract: undefined,
        goalCondition: [],
        policies: [],
      }),
    );
    return { run: runView(run!), dry_run: { allow_side_effects: input.allow_side_effects }, revision: compiled.playbook?.revision ?? 0 };
  }

  /** Steps, edges (dependencies, fallbacks, routes), node and output types, Kahn levels. */
  @Get(':id/graph')
  async graph(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Query('revision') revision?: string) {
    const { graph } = await call(this.deps.clients.planner.getPlaybookGraph({ principal, id, revision: revisionParam(revision) }));
    return { graph: graph ?? {} };
  }
}

/**
 * `{valid, errors, warnings, results}` (playbook-validation.view.ts): every
 * problem with field, step, line, column and suggestedFix; an
 * INVALID_ARGUMENT (no YAML, too large, id mismatch) is an answer here too.
 */
async function validation(compile: () => Promise<planner.CompilePlaybookResponse>) {
  try {
    return playbookValidationView(await compile());
  } catch (err) {
    if (err instanceof AppError && err.code === 'INVALID_ARGUMENT') return refusedValidationView(err.violations.map((v) => ({ ...v, code: v.code ?? 'invalid_field' })));
    throw err;
  }
}

function revisionParam(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw AppError.invalid('revision', 'must be a positive integer (a stored version of the playbook)');
  return n;
}
