/**
 * Built-in action contracts, part 1 (seed §5 "Built-In Action I/O Registry"):
 * connector, knowledge graph, document & web search, entity operations, graph
 * analysis, data transformation, persistence, and the llm_task actions.
 * "(required)" in the seed = `!` here; fields the seed lists without a type are `any`.
 */
import { tool, type ActionContract } from './action-contract.js';

const ENTITY = 'entity[]{name,type,subtype,aliases,external_ids,confidence}';

export const CORE_ACTIONS: ActionContract[] = [
  tool(
    'call_connector',
    'connector',
    {
      description: 'Call a data source connector endpoint',
      // Inputs come from the endpoint's `parameters`; outputs from its `output_schema`.
      params: { connector: 'string! Connector ID', endpoint: 'string! Endpoint name' },
      outputs: { results: 'record[] Records returned by the endpoint', count: 'integer', has_more: 'boolean' },
    },
    { dynamicInputs: true, dynamicOutputs: true, outputType: 'record_set' },
  ),
  tool('search_knowledge_graph', 'knowledge_graph', {
    description: 'Search Neo4j for existing entities and relationships',
    inputs: { entity_name: 'string Entity to search for', entity_names: 'string[] Multiple entities' },
    params: {
      entity_types: 'string[] Filter by type [PERSON, ORG, ...]',
      relationship_types: 'string[] Filter relationships',
      include_related: 'boolean Include N-hop neighbors',
      max_hops: 'integer=2 Neighbor depth',
    },
    outputs: {
      entities: ENTITY,
      relationships: 'relationship[]{source,target,type,properties,confidence}',
      count: 'integer',
    },
  }),
  tool('search_documents', 'search', {
    description: "Hybrid search (dense + BM25, reciprocal rank fusion) over the user's document library, with sources and confidence",
    inputs: { query: 'string! Search query' },
    params: {
      max_results: 'integer=8',
      folder_path: 'string Restrict to a folder path (e.g. "/reports")',
      file_types: 'string[] Filter by type (pdf, docx, xlsx, csv, markdown, text, html)',
      document_ids: 'string[] Restrict to these documents',
      mode: 'string="hybrid" "hybrid", "dense" or "bm25"',
    },
    outputs: {
      documents: 'document[]{document_id,title,snippet,text,score,confidence,folder_path,file_type,chunk_id,page,section,source}',
      sources: 'source[]{n,document_id,file,page,section,chunk_id}',
      count: 'integer',
      confidence: 'number Confidence of the best hit (0-1)',
      query_analysis: 'object Filters read from the query (dates, doc types, names)',
    },
  }),
  tool('search_web', 'search', {
    description: "Web search through the user's web-search connector (e.g. one made from the tavily-web-search template)",
    inputs: { query: 'string! Search query' },
    params: {
      max_results: 'integer=10 Results to return (1-20)',
      categories: 'string[] At most one of general, news, finance',
      connector_id: 'string The web-search connector to use (default: your only one)',
    },
    outputs: { results: 'web_result[]{title,url,snippet,source}', count: 'integer' },
  }),
  tool('crawl_url', 'search', {
    description: 'Fetch one web page (robots.txt respected) and extract its text, title and links',
    inputs: { url: 'string! http(s) URL to crawl' },
    params: { extract_mode: 'string="text" "text" or "markdown"' },
    outputs: { content: 'string Extracted page content', title: 'string', metadata: 'object Page metadata', links: 'string[]' },
  }),
  tool('extract_entities', 'entity', {
    description: 'Extract named entities from data records',
    inputs: { data: 'record[]! Records to process' },
    params: { entity_types: 'string[] Types to extract ("auto" for all)', relationship_type: 'string Default relationship to assign' },
    outputs: {
      entities: 'entity[]{name,type,source_field,source_record_index,confidence}',
      count: 'integer',
      method: 'string "rules", or "llm" when a model read the free text',
      model: 'string The model that read the free text (method llm)',
    },
  }),
  // Writes the knowledge graph (merges, new entities, review items): skipped in dry runs, later steps wait for it.
  tool(
    'resolve_entities',
    'entity',
    {
      description: 'Resolve entity duplicates and merge aliases',
      inputs: { entities: 'entity[]! Entities to resolve' },
      params: { strategy: 'string="fuzzy" "exact", "fuzzy" or "ml"', threshold: 'number=0.85 Minimum similarity (0-1)' },
      outputs: {
        resolved: 'entity[]{canonical_name,type,aliases,merge_count,confidence}',
        merge_count: 'integer',
        ambiguous: 'entity[] Entities that need human review',
      },
    },
    { sideEffect: true },
  ),
  // output.auto_enrich_graph: the playbook compiler adds one after each connector step (playbook/enrich-nodes.ts).
  tool(
    'enrich_knowledge',
    'entity',
    {
      description: "Feed the knowledge graph from a connector step's records (extract by the endpoint's entity_extraction hints, then resolve)",
      inputs: { data: 'record[]! Records of the connector step' },
      params: {
        connector: 'string Connector id (provenance)',
        endpoint: 'string Endpoint name (provenance)',
        source_node: 'string The connector step whose records these are (provenance)',
        entity_extraction: "record[] The endpoint's response_mapping.entity_extraction hints [{field, entity_type, relationship_type}]",
      },
      outputs: {
        resolved: ENTITY,
        merge_count: 'integer',
        ambiguous: 'entity[] Entities that need human review',
        relationship_count: 'integer',
        skipped: 'record[] Values not resolved, with the reason',
        count: 'integer',
      },
    },
    { sideEffect: true },
  ),
  tool('cross_reference', 'entity', {
    description: 'Match entities across two or more datasets',
    inputs: { dataset_a: 'record[]! First dataset', dataset_b: 'record[]! Second dataset' },
    params: { match_strategy: 'string "exact", "fuzzy_name" or "external_id"', match_threshold: 'number=0.8 Minimum similarity (0-1)' },
    outputs: {
      matches: 'match[]{entity_a,entity_b,match_score,match_method}',
      unmatched_a: 'record[] Records from A with no match',
      unmatched_b: 'record[] Records from B with no match',
      count: 'integer',
    },
  }),
  tool('analyze_graph', 'graph_analysis', {
    description: 'Run graph algorithms on entity subgraph',
    inputs: { entities: 'entity[] Starting entities (omit for full graph)' },
    params: {
      algorithm: 'string "pagerank", "community_detection", "betweenness", "shortest_path" or "connected_components"',
      scope: 'string "full_graph" or "subgraph_from_entities"',
      max_nodes: 'integer Limit for performance',
    },
    // The shape of `results` varies by algorithm, so its records are open.
    outputs: { results: 'record[] Algorithm results', node_count: 'integer', edge_count: 'integer' },
  }),
  tool('transform_data', 'transform', {
    description: 'Filter, sort, aggregate, or reshape data',
    inputs: { data: 'record[]! Data to transform' },
    params: { operations: 'object[] Operations applied in order (filter, sort, aggregate, deduplicate, limit)' },
    outputs: { data: 'record[] Same shape as the input', count: 'integer' },
  }),
  tool(
    'save_to_workspace',
    'persistence',
    {
      description: 'Save structured data to a Data Workspace table',
      inputs: { data: 'record[]! Data to save' },
      params: {
        table_name: 'string Target table',
        workspace_id: 'string Workspace ID (default workspace when omitted)',
        create_if_missing: 'boolean Auto-create table from data shape',
        upsert_key: 'string Field to use for upsert',
      },
      outputs: { rows_inserted: 'integer', rows_updated: 'integer', table_name: 'string', workspace_id: 'string' },
    },
    { sideEffect: true },
  ),
  tool(
    'route_output',
    'persistence',
    {
      description: 'Send data to output destinations mid-workflow',
      inputs: { data: 'any! Data to route' },
      params: { destinations: 'object[] Output destination configs (same as playbook output)' },
      outputs: { routed_to: 'string[] Destination types that received data', success: 'boolean' },
    },
    { sideEffect: true },
  ),
];

/** llm_task actions; their outputs come from the step's `output_schema`. */
export const LLM_ACTIONS: ActionContract[] = [
  tool(
    'synthesize_report',
    'llm',
    { description: 'LLM synthesis of collected data into a report', params: { template: 'string Report template name', instructions: 'string LLM instructions' } },
    { stepType: 'llm_task', openInputs: true, dynamicOutputs: true },
  ),
  tool(
    'llm_analyze',
    'llm',
    { description: 'LLM analysis/classification of data', params: { template: 'string Report template name', instructions: 'string LLM instructions' } },
    { stepType: 'llm_task', openInputs: true, dynamicOutputs: true },
  ),
  tool(
    'research_with_tools',
    'llm',
    {
      description: 'LLM receives tools and decides what to call',
      params: { tools: 'string[] Tool names the LLM can call', system_prompt: 'string Research instructions', max_rounds: 'integer=3 Maximum tool-calling rounds' },
    },
    { stepType: 'llm_task', openInputs: true, dynamicOutputs: true },
  ),
];
