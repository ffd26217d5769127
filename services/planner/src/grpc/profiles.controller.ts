/** AgentProfileService over gRPC: thin, the rules are in app/profiles.service.ts. */
import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { profiles } from '@af/contracts';
import type { ProfileMessages } from '../app/profile-messages.js';
import type { ProfilesService } from '../app/profiles.service.js';
import type { ProfileAction } from '../domain/profiles/sharing.js';
import { toStruct } from './flex.mapper.js';
import { agentToWire, callerOf, profileToWire, shareToWire, templateToWire } from './profile.mapper.js';

const PROFILES = Symbol('ProfilesService');
const MESSAGES = Symbol('ProfileMessages');

@Controller()
@profiles.AgentProfileServiceControllerMethods()
export class ProfilesController implements profiles.AgentProfileServiceController {
  constructor(
    @Inject(PROFILES) private readonly profiles: ProfilesService,
    @Inject(MESSAGES) private readonly messages: ProfileMessages,
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
    const out = await this.messages.prepare(callerOf(req.principal), req.message, req.agentProfileId, req.inputs ?? {});
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
    };
  }
}

@Module({})
export class ProfilesModule {
  static forRoot(service: ProfilesService, messages: ProfileMessages): DynamicModule {
    return {
      module: ProfilesModule,
      controllers: [ProfilesController],
      providers: [
        { provide: PROFILES, useValue: service },
        { provide: MESSAGES, useValue: messages },
      ],
    };
  }
}
