/**
 * Chat conversations: the caller's own only (another's is NOT_FOUND). The
 * chat stream appends the user's message and the agent's answer; research and
 * direct answers read the recent history.
 */
import { AppError } from '@af/service-kit';
import type { Caller } from '../domain/profiles/sharing.js';
import type { ConversationMessage, JournalRepository } from '../infra/journal.repository.js';

const HISTORY = 20;
const MAX_CONTENT = 100_000;

export class Conversations {
  constructor(private readonly repo: Pick<JournalRepository, 'createConversation' | 'conversationOwner' | 'messages' | 'append'>) {}

  async get(caller: Caller, id: string, limit = 200): Promise<ConversationMessage[]> {
    await this.owned(caller, id);
    return this.repo.messages(id, limit);
  }

  async history(caller: Caller, id: string): Promise<Array<{ role: string; content: string }>> {
    return (await this.get(caller, id, HISTORY)).map((m) => ({ role: m.role, content: m.content }));
  }

  async append(caller: Caller, id: string, messages: readonly Record<string, unknown>[]): Promise<string> {
    if (!caller.userId) throw new AppError('UNAUTHENTICATED', 'a user is required');
    const parsed = messages.map((m, i) => {
      if (m.role !== 'user' && m.role !== 'agent') throw AppError.invalid(`messages[${i}].role`, 'must be user or agent');
      if (typeof m.content !== 'string' || m.content.length > MAX_CONTENT) throw AppError.invalid(`messages[${i}].content`, `must be a string of at most ${MAX_CONTENT} characters`);
      return {
        role: m.role as 'user' | 'agent',
        content: m.content,
        agent_profile_id: typeof m.agent_profile_id === 'string' && m.agent_profile_id ? m.agent_profile_id : null,
        run_id: typeof m.run_id === 'string' && m.run_id ? m.run_id : null,
      };
    });
    const conversationId = id || (await this.repo.createConversation(caller.userId));
    if (id) await this.owned(caller, id);
    await this.repo.append(conversationId, parsed);
    return conversationId;
  }

  private async owned(caller: Caller, id: string): Promise<void> {
    if ((await this.repo.conversationOwner(id)) !== caller.userId || !caller.userId) throw AppError.notFound('conversation', id);
  }
}
