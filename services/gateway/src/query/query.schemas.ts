/** Request bodies of POST /query and /query/stream. */
import { z } from 'zod';

export const QuerySchema = z.strictObject({
  query: z.string().trim().min(1, 'must not be empty').max(4_000, 'must be at most 4000 characters').describe('The question'),
  conversation_id: z.uuid('must be a conversation id (UUID)').optional().describe('A conversation of yours: the exchange is added to it and its history informs the plan'),
  session_id: z.uuid('must be a session id (UUID)').optional().describe('A session of yours (a new one when left out)'),
});
