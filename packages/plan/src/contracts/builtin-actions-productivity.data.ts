/**
 * Built-in action contracts, part 3 (seed §5): notifications & messaging,
 * task management and granular file operations. The seed marks no input of
 * these as "(required)"; the primary input of each (the message, the todo id,
 * the document id, …) is required here, alternatives (`document_id` or `path`)
 * are not.
 */
import { tool, type ActionContract } from './action-contract.js';

const SE = { sideEffect: true } as const;

export const NOTIFICATION_ACTIONS: ActionContract[] = [
  tool(
    'send_notification',
    'notification',
    {
      description: 'Send an in-app notification',
      inputs: { message: 'string!' },
      params: { title: 'string', priority: 'string="normal" "low", "normal", "high" or "urgent"', action_url: 'string', action_label: 'string' },
      outputs: { notification_id: 'string', success: 'boolean' },
    },
    SE,
  ),
  tool(
    'send_channel_message',
    'notification',
    {
      description: 'Send a message to a messaging channel',
      inputs: { message: 'string!' },
      params: { channel: 'string "telegram", "discord", "slack" or "default"', chat_id: 'string', format: 'string "markdown", "plain" or "html"', silent: 'boolean' },
      outputs: { message_id: 'string', channel: 'string', success: 'boolean' },
    },
    SE,
  ),
  tool(
    'broadcast_to_team',
    'notification',
    {
      description: 'Send a message to every member of a team',
      inputs: { message: 'string!', team_id: 'string!' },
      params: { channel: 'string Force a specific channel or "preferred"' },
      outputs: { delivered_to: 'integer', failures: 'integer', success: 'boolean' },
    },
    { ...SE, requires: 'team_post_access' },
  ),
];

export const TASK_ACTIONS: ActionContract[] = [
  tool(
    'create_todo',
    'task',
    {
      description: 'Create a todo item',
      inputs: { title: 'string!', body: 'string' },
      params: {
        priority: 'string "A", "B" or "C"',
        state: 'string="TODO" "TODO", "NEXT" or "WAITING"',
        deadline: 'date',
        scheduled: 'date',
        tags: 'string[]',
        target_file: 'string',
      },
      outputs: { success: 'boolean', todo_id: 'string', file_path: 'string' },
    },
    SE,
  ),
  tool('list_todos', 'task', {
    description: 'List todo items',
    inputs: { state: 'string "TODO", "DONE" or "all"' },
    params: { tags: 'string[]', deadline_before: 'date', file_id: 'string', limit: 'integer' },
    outputs: { todos: 'todo[]', count: 'integer' },
  }),
  tool(
    'update_todo',
    'task',
    {
      description: 'Update a todo item',
      inputs: { todo_id: 'string!' },
      params: {
        state: 'string',
        priority: 'string',
        deadline: 'date',
        scheduled: 'date',
        add_tags: 'string[]',
        remove_tags: 'string[]',
        add_note: 'string',
      },
      outputs: { success: 'boolean', updated_fields: 'string[]' },
    },
    SE,
  ),
  tool(
    'complete_todo',
    'task',
    {
      description: 'Mark a todo item done',
      inputs: { todo_id: 'string!' },
      params: { completion_note: 'string' },
      outputs: { success: 'boolean', completed_at: 'date' },
    },
    SE,
  ),
  tool('search_todos', 'task', {
    description: 'Search todo items',
    inputs: { query: 'string!' },
    params: { states: 'string[]', include_done: 'boolean' },
    outputs: { todos: 'todo[]', count: 'integer' },
  }),
];

export const FILE_ACTIONS: ActionContract[] = [
  tool('read_file', 'file', {
    description: 'Read a document by id or path',
    inputs: { document_id: 'string', path: 'string', scope: 'string "my_docs", "team_docs" or "global_docs"', team_id: 'string' },
    params: { max_length: 'integer', include_frontmatter: 'boolean' },
    outputs: { content: 'string', title: 'string', file_type: 'string', frontmatter: 'object', metadata: 'object' },
  }),
  tool('find_file_by_name', 'file', {
    description: 'Find files by name',
    inputs: { name: 'string!', scope: 'string "my_docs", "team_docs", "global_docs" or "all"', team_id: 'string' },
    params: { exact_match: 'boolean', file_types: 'string[]', folder_id: 'string' },
    outputs: { files: 'file_ref[]', count: 'integer' },
  }),
  tool('find_file_by_vectors', 'file', {
    description: "Find the user's documents by similarity to a query (best chunk of each, from the document index)",
    inputs: { query: 'string!', scope: 'string "my_docs" (the only indexed scope)', team_id: 'string Not indexed: refused' },
    params: { max_results: 'integer=10', file_types: 'string[]', folder_path: 'string', min_score: 'number Minimum confidence (0-1)' },
    outputs: { documents: 'document[]{document_id,title,folder_path,file_type,score,best_match}', count: 'integer' },
  }),
  tool(
    'patch_file',
    'file',
    {
      description: 'Apply edits to a document',
      inputs: { document_id: 'string!', edits: 'object[]! [{operation, target, content}]' },
      params: { create_if_missing: 'boolean' },
      outputs: { success: 'boolean', operations_applied: 'integer', new_content_length: 'integer' },
    },
    SE,
  ),
  tool(
    'delete_file',
    'file',
    {
      description: 'Delete a document',
      inputs: { document_id: 'string!' },
      params: { confirm: 'boolean' },
      outputs: { success: 'boolean', deleted_title: 'string' },
    },
    SE,
  ),
  tool(
    'move_file',
    'file',
    {
      description: 'Move a document to another folder',
      inputs: { document_id: 'string!', target_folder_id: 'string!' },
      outputs: { success: 'boolean', new_folder_path: 'string' },
    },
    SE,
  ),
  tool(
    'copy_file',
    'file',
    {
      description: 'Copy a document to another folder',
      inputs: { document_id: 'string!', target_folder_id: 'string!' },
      params: { new_title: 'string' },
      outputs: { new_document_id: 'string', new_title: 'string', new_folder_path: 'string' },
    },
    SE,
  ),
];
