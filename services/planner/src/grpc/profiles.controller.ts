/** AgentProfileService over gRPC: thin, the rules are in app/profiles.service.ts. */
import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { profiles } from '@af/contracts';
import type { AgentRuns } from '../app/agent-runs.js';
import type { Conversations } from '../app/conversations.js';
import { entryToJson, type Journal } from '../app/journal.js';
import type { FinishedRun } from '../domain/journal/journal-entry.js';
import type { ProfilesService } from '../app/profiles.service.js';
import type { ProfileAction } from '../domain/profiles/sharing.js';
import { toStruct, wirePlan } from './flex.mapper.js';
import { agentToWire, callerOf, profileToWire, shareToWire, templateToWire } from './profile.mapper.js';

const PROFILES = Symbol('ProfilesService');
const AGENTS = Symbol('AgentServices');

/** What the agent routes beyond profiles need: running, the journal and chat history. */
export interface AgentServices {
  runs: AgentRuns;
  journal: Journal;
  conversations: Conversations;
}

@Controller()
@profiles.AgentProfileServiceControllerMethods()
export class ProfilesController implements profiles.AgentProfileServiceController {
  constructor(
    @Inject(PROFILES) private readonly profiles: ProfilesService,
    @Inject(AGENTS) private readonly agents: AgentServices,
  ) {}

  async createProfile(req: profiles.CreateProfileRequest): Promise<profiles.CreateProfileResponse> {
    return { profile: profileToWire(await this.profiles.create(callerOf(req.principal), req.fields ?? {}, req.idempotencyKey)) };
  }

  async getProfile(req: profiles.GetProfileRequest): Promise<profiles.GetProfileResponse> {
    return { profile: profileToWire(await this.profiles.get(callerOf(req.principal), req.id)) };
  }

  async listProfiles(req: profiles.ListProfilesRequest): Promise<profiles.ListProfilesResponse> {
    return { profiles: (await this.profiles.list(callerOf(req.principal))).map(profileToWire) };
  }

  async updateProfile(req: profiles.UpdateProfileRequest): Promise<profiles.UpdateProfileResponse> {
    return { profile: profileToWire(await this.profiles.update(callerOf(req.principal), req.id, req.fields ?? {})) };
  }

  async deleteProfile(req: profiles.DeleteProfileRequest): Promise<profiles.DeleteProfileResponse> {
    return this.profiles.delete(callerOf(req.principal), req.id);
  }

  async duplicateProfile(req: profiles.DuplicateProfileRequest): Promise<profiles.DuplicateProfileResponse> {
    return { profile: profileToWire(await this.profiles.duplicate(callerOf(req.principal), req.id, req.fields ?? {}, req.idempotencyKey)) };
  }

  listProfileTemplates(): profiles.ListProfileTemplatesResponse {
    return { templates: this.profiles.templates().map(templateToWire) };
  }

  async createProfileFromTemplate(req: profiles.CreateProfileFromTemplateRequest): Promise<profiles.CreateProfileFromTemplateResponse> {
    const out = await this.profiles.fromTemplate(callerOf(req.principal), req.templateId, req.fields ?? {}, req.idempotencyKey);
    return { profile: profileToWire(out.view), connectorsToBind: out.connectorsToBind, playbooksToAttach: out.playbooksToAttach };
  }

  async attachPlaybook(req: profiles.AttachPlaybookRequest): Promise<profiles.AttachPlaybookResponse> {
    const out = await this.profiles.attachPlaybook(callerOf(req.principal), req.profileId, req.playbookId, req.priority, req.parameters ?? {});
    return { profile: profileToWire(out.view), warnings: out.warnings };
  }

  async detachPlaybook(req: profiles.DetachPlaybookRequest): Promise<profiles.DetachPlaybookResponse> {
    return { profile: profileToWire(await this.profiles.detachPlaybook(callerOf(req.principal), req.profileId, req.playbookId)) };
  }

  async shareProfile(req: profiles.ShareProfileRequest): Promise<profiles.ShareProfileResponse> {
    const out = await this.profiles.share(callerOf(req.principal), req.profileId, req.teamId, req.settings ?? {}, req.updateOnly);
    return { share: shareToWire(out.share), created: out.created };
  }

  async unshareProfile(req: profiles.UnshareProfileRequest): Promise<profiles.UnshareProfileResponse> {
    await this.profiles.unshare(callerOf(req.principal), req.profileId, req.teamId);
    return {};
  }

  async listProfileShares(req: profiles.ListProfileSharesRequest): Promise<profiles.ListProfileSharesResponse> {
    return { shares: (await this.profiles.shares(callerOf(req.principal), req.profileId)).map(shareToWire) };
  }

  async listTeamAgents(req: profiles.ListTeamAgentsRequest): Promise<profiles.ListTeamAgentsResponse> {
    return { agents: (await this.profiles.teamAgents(callerOf(req.principal), req.teamId)).map(agentToWire) };
  }

  async resolveHandle(req: profiles.ResolveHandleRequest): Promise<profiles.ResolveHandleResponse> {
    const { agent, query } = await this.profiles.resolve(callerOf(req.principal), req.handle);
    return {
      agentProfileId: agent.profile.id,
      handle: agent.profile.handle,
      name: agent.profile.name,
      icon: agent.profile.icon ?? '',
      owner: agent.source === 'own' ? 'user' : 'team',
      teamId: agent.teamId ?? '',
      query,
    };
  }

  async listAvailableAgents(req: profiles.ListAvailableAgentsRequest): Promise<profiles.ListAvailableAgentsResponse> {
    return { agents: (await this.profiles.available(callerOf(req.principal))).map(agentToWire) };
  }

  async authorizeProfile(req: profiles.AuthorizeProfileRequest): Promise<profiles.AuthorizeProfileResponse> {
    const { view } = await this.profiles.authorize(callerOf(req.principal), req.profileId, req.action as ProfileAction);
    return { agentProfileId: view.profile.id, ownerUserId: view.profile.user_id, access: view.access, teamId: view.teamId ?? '' };
  }

  async prepareMessage(req: profiles.PrepareMessageRequest): Promise<profiles.PrepareMessageResponse> {
    const out = await this.agents.runs.prepare(callerOf(req.principal), req.message, req.agentProfileId, req.inputs ?? {}, req.conversationId ?? '');
    return {
      agentProfileId: out.profile.id,
      handle: out.profile.handle,
      query: out.query,
      strategy: out.strategy,
      playbookId: out.playbookId ?? '',
      reason: out.reason,
      needsModel: out.needsModel,
      notes: out.notes,
      inputs: toStruct(out.inputs),
      extracted: out.extracted.map(toStruct),
      clarify: out.clarify ? toStruct(out.clarify) : undefined,
      plan: out.plan && !out.clarify && !out.needsModel ? wirePlan(out.plan) : undefined,
      teamId: out.teamId ?? '',
    };
  }

  async recordAgentRun(req: profiles.RecordAgentRunRequest): Promise<profiles.RecordAgentRunResponse> {
    await this.agents.runs.record(callerOf(req.principal), {
      runId: req.runId,
      agentProfileId: req.agentProfileId,
      query: req.query,
      strategy: req.strategy,
      playbookId: req.playbookId,
      teamId: req.teamId,
      runContext: req.runContext,
    });
    return {};
  }

  async finishAgentRun(req: profiles.FinishAgentRunRequest): Promise<profiles.FinishAgentRunResponse> {
    const out = await this.agents.runs.finish(callerOf(req.principal), req.runId, (req.run ?? {}) as unknown as FinishedRun);
    return { entry: toStruct(entryToJson(out.entry)), answer: out.answer };
  }

  async listJournal(req: profiles.ListJournalRequest): Promise<profiles.ListJournalResponse> {
    const out = await this.agents.journal.list(callerOf(req.principal), req.agentProfileId, {
      pageSize: req.pageSize,
      pageToken: req.pageToken,
      taskStatuses: req.taskStatuses,
      entity: req.entity,
      dateFrom: req.dateFrom,
      dateTo: req.dateTo,
    });
    return { entries: out.entries.map((e) => toStruct(entryToJson(e))), nextPageToken: out.nextPageToken };
  }

  async getJournalEntry(req: profiles.GetJournalEntryRequest): Promise<profiles.GetJournalEntryResponse> {
    return { entry: toStruct(entryToJson(await this.agents.journal.get(callerOf(req.principal), req.id))) };
  }

  async journalSummary(req: profiles.JournalSummaryRequest): Promise<profiles.JournalSummaryResponse> {
    return { summary: toStruct(await this.agents.journal.summary(callerOf(req.principal), req.agentProfileId)) };
  }

  async getConversation(req: profiles.GetConversationRequest): Promise<profiles.GetConversationResponse> {
    const messages = await this.agents.conversations.get(callerOf(req.principal), req.conversationId);
    return { conversationId: req.conversationId, messages: messages.map((m) => toStruct({ ...m, created_at: m.created_at.toISOString() })) };
  }

  async appendConversation(req: profiles.AppendConversationRequest): Promise<profiles.AppendConversationResponse> {
    return { conversationId: await this.agents.conversations.append(callerOf(req.principal), req.conversationId, req.messages ?? []) };
  }
}

@Module({})
export class ProfilesModule {
  static forRoot(service: ProfilesService, agents: AgentServices): DynamicModule {
    return {
      module: ProfilesModule,
      controllers: [ProfilesController],
      providers: [
        { provide: PROFILES, useValue: service },
        { provide: AGENTS, useValue: agents },
      ],
    };
  }
}
