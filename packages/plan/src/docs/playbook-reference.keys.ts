/**
 * One sentence per playbook key and action category for docs/playbooks.md.
 * The generator lists the keys from the zod schemas and throws when one has
 * no sentence here, so a new key cannot reach the schema undocumented.
 */

export const PLAYBOOK_KEY_DOCS: Record<string, string> = {
  id: 'kebab-case identifier (`org-report`); the id runs and stored versions use',
  name: 'display name',
  description: 'free text',
  version: 'the author\'s version label, kept as written (`"1.0"` stays a string)',
  category: 'free-text grouping',
  required_connectors: 'connector ids the playbook needs (documentation; steps name their own `connector`)',
  execution_mode: '`deterministic` (no `llm_task` steps allowed), `llm_augmented` or `hybrid` (default)',
  run_context: '`interactive` (default), `background`, `scheduled` or `monitor` (needs `monitor_config`)',
  monitor_config: '`{interval, active_hours?: {start, end, timezone}, suppress_if_empty}` for `run_context: monitor`; intervals below',
  approval_policy: '`require` (default): approval steps wait for a person; `auto_approve` records an automatic approval',
  triggers: '`[{pattern, type: keyword | regex | semantic, priority}]`: phrases that select this playbook (stored; regexes are checked)',
  inputs: 'the run\'s inputs, see [Inputs](#inputs)',
  steps: 'at least one step, see [Steps](#steps)',
  output: '`{format: markdown | json | csv | structured, template?, sections?: [{title, source, format?}], auto_enrich_graph?, save_to?, summary_prompt?}`; a section\'s `source` must name a step. Runs when every step has finished, as a trailing `route_output` node `output` (its report on the run and the `complete` frame): chat always, `save_to: document | both` a document in `Playbooks/<id>`, `workspace | both` the table `<id>` (columns inferred); `template` heads the result (`{step.field}` references filled in); `summary_prompt` an llm node when `execution_mode` is not deterministic and a model is configured (else the report says no summary was written); `auto_enrich_graph: true` adds an `enrich_knowledge` node `<step>_enrich` after each `call_connector` step, which feeds the knowledge graph from its records through the endpoint\'s `response_mapping.entity_extraction` hints (a failed enrichment is skipped, never fails the run)',
};

export const STEP_KEY_DOCS: Record<string, string> = {
  name: 'unique step name (letters, digits, `_`, `-`); other steps read its output as `{name.field}`',
  description: 'free text',
  step_type: '**required**: `tool`, `llm_task` or `approval`',
  inputs: 'tool / llm_task: the action\'s inputs, literals or references (`{find_org.results[0].id}`)',
  params: 'tool / llm_task: the action\'s static settings (may hold references too)',
  output_key: 'the name later steps read this step\'s output under (default: the step\'s name)',
  action: 'tool / llm_task: an action of the [registry](#actions); `parallel` for a step with `parallel_steps`',
  connector: '`call_connector` only: the connector id',
  endpoint: '`call_connector` only: the endpoint name',
  operations: '`transform_data` only: the operations, in order, see [Operations](#operations-transform_data)',
  output_schema: '`llm_task` (required there) and `call_connector`: `{type: object | record_set | scalar, fields: [{name, type, description?}]}`',
  preview_from: 'approval only: a step whose output the approver sees',
  preview_limit: 'approval only: how many records of the preview (default 10)',
  prompt: 'approval only (required there): the question; may hold references',
  timeout_minutes: 'approval only: after this long the request times out and the step is skipped',
  on_reject: 'approval only: `stop` (default) fails the run on a rejection; `skip` skips the gate and goes on',
  allow_team_decisions: 'approval only: with `team_ids`, members of those teams may decide too',
  team_ids: 'approval only: team UUIDs (`GET /api/v1/teams`), only with `allow_team_decisions: true`',
  condition: 'run the step only when this holds (see [Conditions](#conditions)); otherwise it is skipped',
  on_error: '`skip` (default), `stop` or `retry`, see [Error policy](#error-policy)',
  timeout_seconds: 'tool / llm_task: the step fails after this long',
  retry_count: '0–10 retries on transient errors before `on_error` applies (`retry` alone means 1)',
  parallel_steps: 'sub-steps that run side by side (no nesting); the group takes only `name`, `description`, `condition`, `on_error`, `timeout_seconds`, `retry_count`',
};

export const INPUT_KEY_DOCS: Record<string, string> = {
  name: 'identifier; steps read it as `{name}`',
  type: 'one of the input types below (default `string`)',
  description: 'free text',
  required: 'a run without a value (and no `default`) is refused with 400 naming `inputs.<name>`',
  default: 'used when the run gives no value; must be of the declared type',
  extract_from: '`query`: may be filled from the user\'s request text',
  enum: 'the allowed values (each element, for a `list`)',
};

export const CATEGORY_DOCS: Record<string, string> = {
  connector: 'Calls to your connectors (see [connectors](connectors.md)).',
  knowledge_graph: 'The knowledge graph of resolved entities.',
  search: 'Search over your documents and the web.',
  entity: 'Extracting, resolving and matching entities.',
  graph_analysis: 'Graph algorithms over the knowledge graph.',
  transform: 'Reshaping data inside the run; no I/O.',
  persistence: 'Saving results outside the run.',
  monitor: 'Change detection for monitor playbooks; each compares against a stored watermark.',
  journal: "The agent's journal.",
  team: 'Team files and posts; these need the access named in `requires`.',
  notification: 'Messages to people.',
  task: 'To-dos.',
  file: 'Your files.',
  llm: '`llm_task` actions: a model does the work; outputs follow the step\'s `output_schema`.',
};
