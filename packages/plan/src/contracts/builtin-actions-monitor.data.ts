/**
 * Built-in action contracts, part 2 (seed §5): monitor detection, agent
 * journal and team interaction. Detection actions compare against a persisted
 * watermark; team actions need the access named in `requires`.
 */
import { tool, type ActionContract } from './action-contract.js';

export const MONITOR_ACTIONS: ActionContract[] = [
  tool(
    'detect_new_files',
    'monitor',
    {
      description: 'Check a folder for files added or modified since last check',
      inputs: { folder_id: 'string! Folder to watch' },
      params: { file_types: 'string[] Filter by extension', include_subfolders: 'boolean=false Recurse into subfolders' },
      outputs: {
        files: 'file_ref[]{file_id,filename,file_type,size_bytes,created_at,modified_at,folder_path}',
        count: 'integer',
        watermark: 'string New watermark to persist (timestamp cursor)',
        previous_watermark: 'string What was checked last time',
      },
    },
    { watermarkType: 'timestamp' },
  ),
  tool(
    'detect_folder_changes',
    'monitor',
    {
      description: 'Detect any changes in a folder (adds, edits, deletes) since last check',
      inputs: { folder_id: 'string! Folder to watch' },
      params: { include_subfolders: 'boolean=false Recurse', change_types: 'string[] Filter: added, modified, deleted (default: all)' },
      outputs: {
        changes: 'change_event[]{file_id,filename,change_type,old_hash,new_hash,timestamp}',
        added_count: 'integer',
        modified_count: 'integer',
        deleted_count: 'integer',
        watermark: 'string Folder state hash',
      },
    },
    { watermarkType: 'hash' },
  ),
  tool(
    'detect_new_data',
    'monitor',
    {
      description: 'Check a connector endpoint for new records since last check',
      inputs: { connector: 'string! Connector ID', endpoint: 'string! Endpoint name' },
      params: {
        date_field: 'string Response field used as cursor (default: auto-detect)',
        extra_params: 'object Additional endpoint parameters',
        since_param: 'string Endpoint parameter given the stored timestamp watermark (e.g. since)',
        cursor_param: 'string Endpoint parameter given the stored cursor watermark',
        cursor_field: 'string Response field holding the next cursor (default: next_cursor, cursor, next)',
        watermark: 'string Start from this watermark instead of the stored one',
      },
      // Plus the endpoint's output_schema when the connector is known.
      outputs: {
        results: 'record[]',
        count: 'integer',
        watermark: 'string Date cursor or API pagination cursor',
        watermark_type: 'string timestamp, cursor or hash',
        previous_watermark: 'string What was checked last time',
      },
    },
    { watermarkType: 'cursor', dynamicOutputs: true, outputType: 'record_set' },
  ),
  tool(
    'detect_new_team_posts',
    'monitor',
    {
      description: 'Check team threads for new messages since last check',
      inputs: { team_id: 'string! Team to monitor' },
      params: { thread_ids: 'string[] Specific threads (all when omitted)', min_length: 'integer Ignore short messages' },
      outputs: {
        posts: 'post[]{post_id,thread_id,author,content,created_at,reply_count}',
        count: 'integer',
        watermark: 'string Post timestamp cursor',
      },
    },
    { watermarkType: 'timestamp', requires: 'team_post_access' },
  ),
  tool(
    'detect_new_entities',
    'monitor',
    {
      description: 'Check knowledge graph for new entities matching criteria since last check',
      inputs: { entity_types: 'string[]! Entity types to watch' },
      params: { min_confidence: 'number=0.5 Minimum confidence', source_filter: 'string Only entities from a specific source' },
      outputs: {
        entities: 'entity[]{name,type,subtype,confidence,source,created_at}',
        count: 'integer',
        watermark: 'string Entity creation timestamp cursor',
      },
    },
    { watermarkType: 'timestamp' },
  ),
  tool(
    'set_monitor_watermark',
    'monitor',
    {
      description: 'Explicitly set/update a monitor watermark (called at end of successful processing)',
      inputs: { watermark: 'string! New watermark value' },
      params: {
        step_name: "string Detection step whose watermark this is (default: the playbook's only detection step)",
        watermark_type: 'string timestamp, cursor, hash or offset (default: the stored kind, else the detection action kind)',
      },
      outputs: { success: 'boolean', previous_watermark: 'string', staged: 'object {step, kind, value}: written when the run completes' },
    },
    { sideEffect: true },
  ),
  tool('get_monitor_watermark', 'monitor', {
    description: 'Get the current watermark for a detection step',
    inputs: { step_name: "string! Which step's watermark to retrieve" },
    outputs: { watermark: 'string', watermark_type: 'string', last_checked_at: 'date', items_found_last: 'integer' },
  }),
];

export const JOURNAL_ACTIONS: ActionContract[] = [
  tool(
    'write_journal_entry',
    'journal',
    {
      description: 'Write a structured journal entry summarizing work done',
      inputs: {
        summary: 'string! Human-readable summary',
        detail_entries: 'object[] Structured step-by-step details',
        entities_mentioned: 'string[] Entity names for search indexing',
      },
      outputs: { journal_entry_id: 'string', success: 'boolean' },
    },
    { sideEffect: true },
  ),
  tool('query_journal', 'journal', {
    description: "Search the agent's work journal by date, keyword, entity, or status",
    inputs: {
      query: 'string Natural language query',
      date_from: 'date Filter by start date',
      date_to: 'date Filter by end date',
      entity_name: 'string Filter by entity mentioned',
      status: 'string Filter by status',
    },
    params: { limit: 'integer=20 Max entries to return' },
    outputs: {
      entries: 'journal_entry[]{summary,created_at,run_context,steps_completed,entities_discovered,outputs_produced,task_status}',
      count: 'integer',
      date_range: 'object {from, to} of matching entries',
    },
  }),
];

export const TEAM_ACTIONS: ActionContract[] = [
  tool(
    'search_team_files',
    'team',
    {
      description: "Search documents in a team's shared folders",
      inputs: { query: 'string! Search query', team_id: 'string! Team to search' },
      params: { max_results: 'integer=10', folder_path: 'string Restrict to subfolder', file_types: 'string[] Filter by type' },
      outputs: { documents: 'document[]{document_id,title,snippet,score,folder_path,author}', count: 'integer' },
    },
    { requires: 'team_file_access' },
  ),
  tool(
    'read_team_file',
    'team',
    {
      description: 'Read a specific document from team shared folders',
      inputs: { document_id: 'string! Document to read', team_id: 'string! Team context' },
      params: { max_length: 'integer Truncate if too long' },
      outputs: { content: 'string', title: 'string', metadata: 'object Author, last_modified, folder_path' },
    },
    { requires: 'team_file_access' },
  ),
  tool(
    'search_team_posts',
    'team',
    {
      description: 'Search team conversation threads by keyword, date, or author',
      inputs: { query: 'string! Search query', team_id: 'string! Team to search' },
      params: { date_from: 'date Filter by start date', date_to: 'date Filter by end date', author: 'string Filter by author', max_results: 'integer=20' },
      outputs: { posts: 'post[]{post_id,thread_id,author,content_preview,created_at,reply_count}', count: 'integer' },
    },
    { requires: 'team_post_access' },
  ),
  tool(
    'write_team_post',
    'team',
    {
      description: 'Write a message to a team conversation thread',
      inputs: { content: 'string! Message content', team_id: 'string! Team to post to' },
      params: { thread_id: 'string Reply to existing thread (creates a new one if omitted)', format: 'string="markdown" "markdown" or "plain"' },
      outputs: { post_id: 'string', thread_id: 'string', success: 'boolean' },
    },
    { requires: 'team_post_access', sideEffect: true },
  ),
  tool(
    'summarize_team_thread',
    'team',
    {
      description: 'Generate a summary of a team conversation thread',
      inputs: { thread_id: 'string! Thread to summarize', team_id: 'string! Team context' },
      params: { max_length: 'integer Summary length limit', focus: 'string "decisions", "action_items" or "key_points"' },
      outputs: { summary: 'string', key_points: 'string[]', action_items: 'string[]', participants: 'string[]' },
    },
    { requires: 'team_post_access' },
  ),
];
