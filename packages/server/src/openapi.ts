import { eqlSchema, HMAC_ROUTE_TABLE } from '@eql/core';
import { STABILITY_HEADER, stabilityOf } from './http/stability.js';

/** A JSON object of the document. */
type Node = Record<string, unknown>;

/** Where the query request (spec 2.1) of the EQL schema lands in the document. */
export const QUERY_REQUEST_REF = '#/components/schemas/QueryRequest';

/** Routes whose body is the query request (spec 2.1). */
const QUERY_REQUEST_BODIES: ReadonlyArray<readonly [string, string]> = [
  ['/v2/auto/queries/validate', 'post'],
  ['/v2/auto/queries', 'post'],
  ['/v2/auto/queries/drafts', 'post'],
];

const STREAMS = ['/v2/auto/queries/stream', '/v2/auto/queries/{queryId}/stream'];

const METHOD_ORDER = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const TOP_ORDER = ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'security', 'tags', 'paths', 'webhooks', 'components', 'externalDocs'];

const TAGS = [
  { name: 'system', description: 'Spec 4.1: ping and key status (with the {success, data} envelope)' },
  { name: 'auto', description: 'Spec 4.4: validate, create, poll, cancel, delete, list, executions, sessions, preview' },
  { name: 'drafts', description: 'Spec 4.4: drafts, stored as given and converted into active queries' },
  { name: 'exchanges', description: 'Spec 4.4: exchange connections and the perpetual-symbol check' },
  { name: 'streams', description: 'Spec 6: Server-Sent Events of one query or of all the caller\'s queries' },
  { name: 'data', description: 'Spec 4.2: account stats, trending tokens and contract addresses, mentions, news, summaries, narratives; and ingest' },
  { name: 'chat', description: 'Spec 4.3: one complete answer of the analyst per request, in sessions' },
  { name: 'x402', description: 'Spec 4.5: the keyless payment model, paid per request in USDC (x402), agent routes with x-svc-agent-secret' },
];

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The operationId of every route (`METHOD path`), for generated clients (`client.createQuery(...)`), and
 * the summary of those whose route schema has none. A route missing here fails the build of the document.
 */
const OPERATIONS: Record<string, readonly [operationId: string, summary?: string]> = {
  'GET /ready': ['getReadiness'],
  'GET /v2/ping': ['ping', 'Is the host up (no key needed)'],
  'GET /v2/key-status': ['getKeyStatus', 'The calling key: plan, limits, usage and credits of the day'],
  'GET /v2/account/smart-stats': ['getAccountSmartStats'],
  'GET /v2/aggregations/trending-cas/telegram': ['listTrendingContractsTelegram'],
  'GET /v2/aggregations/trending-cas/twitter': ['listTrendingContractsTwitter'],
  'GET /v2/aggregations/trending-tokens': ['listTrendingTokens'],
  'GET /v2/data/event-summary': ['getEventSummary'],
  'GET /v2/data/keyword-mentions': ['listKeywordMentions'],
  'GET /v2/data/token-news': ['listTokenNews'],
  'GET /v2/data/top-mentions': ['listTopMentions'],
  'GET /v2/data/trending-narratives': ['listTrendingNarratives'],
  'POST /v2/ingest': ['ingestMarketData'],
  'POST /v2/chat': ['chat'],
  'POST /v2/auto/chat': ['buildQuery'],
  'GET /v2/auto/exchanges': ['listExchanges', 'The exchanges connected to the calling key, and those it can connect'],
  'POST /v2/auto/exchanges': ['connectExchange', 'Connect an exchange with its credentials (checked with the venue, sealed at rest)'],
  'DELETE /v2/auto/exchanges/{exchange}': ['disconnectExchange', 'Disconnect an exchange and forget its credentials'],
  'GET /v2/auto/validate-symbol/{exchange}/{symbol}': ['validateSymbol', 'Whether an exchange lists a perpetual symbol'],
  'GET /v2/auto/executions': ['listExecutions', "The executions of the caller's queries, newest first"],
  'GET /v2/auto/executions/{executionId}': ['getExecution', 'One execution of an action'],
  'GET /v2/auto/queries': ['listQueries', "The caller's queries, newest first, by status"],
  'POST /v2/auto/queries': ['createQuery', 'Create a query (validate it first): it runs until it fires, expires or is cancelled'],
  'POST /v2/auto/queries/validate': ['validateQuery', 'Validate a query: diagnostics and the credits it would cost'],
  'POST /v2/auto/queries/preview': ['previewQuery', 'Run a query over the recording in virtual time: when it would have fired'],
  'GET /v2/auto/queries/stream': ['streamNotifications'],
  'GET /v2/auto/queries/{queryId}': ['getQuery', 'Poll a query: status, latest evaluation, executions'],
  'DELETE /v2/auto/queries/{queryId}': ['deleteQuery', 'Delete a query that is no longer active'],
  'POST /v2/auto/queries/{queryId}/cancel': ['cancelQuery', 'Cancel an active query'],
  'GET /v2/auto/queries/{queryId}/sessions': ['listQuerySessions', 'The LLM sessions of a query'],
  'GET /v2/auto/queries/{queryId}/sessions/{sessionId}': ['getQuerySession', 'One LLM session of a query'],
  'GET /v2/auto/queries/{queryId}/stream': ['streamQueryNotifications'],
  'GET /v2/auto/queries/drafts': ['listDrafts', "The caller's drafts, newest first"],
  'POST /v2/auto/queries/drafts': ['saveDraft', 'Store a draft as given (it may be invalid)'],
  'GET /v2/auto/queries/drafts/{draftId}': ['getDraft', 'One draft'],
  'POST /v2/auto/queries/drafts/{draftId}': ['updateDraft', 'Replace a draft (its id in the signed path)'],
  'DELETE /v2/auto/queries/drafts/{draftId}': ['deleteDraft', 'Delete a draft'],
  'POST /v2/auto/queries/drafts/{draftId}/convert': ['convertDraft', 'Turn a draft into an active query'],
  'POST /v2/auto/queries/drafts/{draftId}/preview': ['previewDraft', 'Preview a draft over the recording'],
  'POST /v2/auto/queries/drafts/{draftId}/validate': ['validateDraft', 'Validate a draft'],
  'POST /v2/auto/webhook-secret/rotate': ['rotateWebhookSecret'],
  'GET /x402/v2/account/smart-stats': ['getAccountSmartStatsPaid'],
  'GET /x402/v2/aggregations/trending-cas/telegram': ['listTrendingContractsTelegramPaid'],
  'GET /x402/v2/aggregations/trending-cas/twitter': ['listTrendingContractsTwitterPaid'],
  'GET /x402/v2/aggregations/trending-tokens': ['listTrendingTokensPaid'],
  'POST /x402/v2/auto/chat': ['buildQueryPaid'],
  'POST /x402/v2/auto/queries': ['createQueryPaid'],
  'POST /x402/v2/auto/queries/validate': ['validateQueryPaid'],
  'POST /x402/v2/auto/queries/{queryId}': ['getQueryPaid'],
  'POST /x402/v2/auto/queries/{queryId}/cancel': ['cancelQueryPaid'],
  'POST /x402/v2/auto/queries/{queryId}/sessions': ['listQuerySessionsPaid'],
  'POST /x402/v2/auto/queries/{queryId}/sessions/{sessionId}': ['getQuerySessionPaid'],
  'POST /x402/v2/chat': ['chatPaid'],
};

/** What each signing rule of spec 5.2 means for a client, in the operation's description. */
const SIGNING_RULES: Record<string, string> = {
  always: 'Always signed (spec 5.2).',
  'body-trade': 'Signed when the query trades (a market_order or limit_order step, or an llm step whose callback trades); otherwise the signature is optional (spec 5.2).',
  'stored-query': 'Signed when the stored query trades; otherwise optional (spec 5.2).',
  'stored-draft': 'Signed when the stored draft trades; otherwise optional (spec 5.2).',
  optional: 'A signature is optional; when sent, it is checked (spec 5.2).',
};

/**
 * Spec 5.2's signature: two header schemes (`hmacTimestamp`, `hmacSignature`) that go together with the
 * API key, required on the routes that are always signed and one of the alternatives where the rule
 * depends on the query; each route of the table says its rule and whether the body is signed
 * (`x-eql-signature`).
 */
function declareSignatures(paths: Record<string, Node>, components: Node): void {
  const schemes: Node = isNode(components.securitySchemes) ? components.securitySchemes : (components.securitySchemes = {});
  schemes.hmacTimestamp = { type: 'apiKey', in: 'header', name: 'x-svc-timestamp', description: 'Unix time in seconds of the signature (within 30 s of the host\'s clock); goes with hmacSignature' };
  schemes.hmacSignature = {
    type: 'apiKey',
    in: 'header',
    name: 'x-svc-signature',
    description:
      'Lowercase hex HMAC-SHA256, keyed with the API key\'s HMAC secret, of x-svc-timestamp + METHOD + the path inside /v2/auto + the body exactly as sent (the empty string on routes whose signature does not cover it). Accepted once. A mismatch answers 401 signature_invalid_signature with the string the host signed in its details.',
  };
  const signed = { apiKey: [], hmacTimestamp: [], hmacSignature: [] };
  for (const row of HMAC_ROUTE_TABLE) {
    const path = `/v2/auto${row.pattern.replace(/:([A-Za-z]+)/g, '{$1}')}`;
    const op = operation(paths, path, row.method.toLowerCase());
    if (!op) continue;
    op.security = row.rule === 'always' ? [signed] : [{ apiKey: [] }, signed];
    op['x-eql-signature'] = { rule: row.rule, bodySigned: row.bodyInSignature };
    const note = `${SIGNING_RULES[row.rule] ?? ''} ${row.bodyInSignature ? 'The body is part of the signed string.' : 'The body is not part of the signed string.'}`;
    op.description = typeof op.description === 'string' ? `${op.description}\n\n${note}` : note;
  }
}

/** Names every operation (operationId) and gives a summary to those without one; refuses a route the table lacks. */
function nameOperations(paths: Record<string, Node>): void {
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!isNode(op) || !METHOD_ORDER.includes(method)) continue;
      const entry = OPERATIONS[`${method.toUpperCase()} ${path}`];
      if (!entry) throw new Error(`OpenAPI: no operationId for ${method.toUpperCase()} ${path}: add it to OPERATIONS in packages/server/src/openapi.ts`);
      op.operationId = entry[0];
      if (typeof op.summary !== 'string' && entry[1] !== undefined) op.summary = entry[1];
    }
  }
}

/**
 * The OpenAPI 3.1 document of the host, from the one @fastify/swagger generates out of the route
 * schemas: the query request bodies (validate, create, draft upsert, and the `query` of preview)
 * reference the real EQL schema (schemas/eql.schema.json as `components.schemas.QueryRequest`, its
 * `$defs` as sibling components), the repeated error body becomes `components.schemas.Error`, the
 * SSE routes describe their `text/event-stream` answers and statuses, ping needs no key, and keys
 * come in a fixed order. `GET /openapi.json` serves it and `npm run openapi` writes it to
 * schemas/openapi.json.
 */
export function openApiDocument(generated: object): Node {
  const doc = structuredClone(generated) as Node;
  const components: Node = isNode(doc.components) ? doc.components : (doc.components = {});
  const schemas: Node = isNode(components.schemas) ? components.schemas : (components.schemas = {});
  const paths = (isNode(doc.paths) ? doc.paths : {}) as Record<string, Node>;

  addEqlSchema(schemas);
  for (const [path, method] of QUERY_REQUEST_BODIES) {
    const content = requestContent(operation(paths, path, method));
    if (content) content.schema = { $ref: QUERY_REQUEST_REF };
  }
  const previewBody = requestContent(operation(paths, '/v2/auto/queries/preview', 'post'))?.schema;
  if (isNode(previewBody) && isNode(previewBody.properties)) {
    previewBody.description = 'Spec 2.1: preview takes only the query';
    previewBody.properties.query = { $ref: '#/components/schemas/query' };
  }

  shareErrorSchema(paths, schemas);
  describeStreams(paths);
  const ping = operation(paths, '/v2/ping', 'get');
  if (ping) ping.security = [];
  markStability(paths);
  nameOperations(paths);
  declareSignatures(paths, components);
  doc.tags = TAGS;
  doc.servers ??= [{ url: 'http://localhost:8787', description: 'A host started with `npm start` (EQL_PORT, EQL_HOST)' }];
  return ordered(doc);
}

/** Spec 9: Auto operations carry `x-beta: true`, the experimental data routes `x-experimental: true` (as their answers carry x-eql-stability). */
function markStability(paths: Record<string, Node>): void {
  for (const [path, item] of Object.entries(paths)) {
    const stability = stabilityOf(path);
    if (!stability) continue;
    for (const op of Object.values(item)) {
      if (!isNode(op)) continue;
      op[stability === 'beta' ? 'x-beta' : 'x-experimental'] = true;
      const note = `${stability === 'beta' ? 'Beta' : 'Experimental: may change without notice'} (spec 9; answers carry ${STABILITY_HEADER}: ${stability}).`;
      op.description = typeof op.description === 'string' ? `${op.description}\n\n${note}` : note;
    }
  }
}

function operation(paths: Record<string, Node>, path: string, method: string): Node | undefined {
  const item = paths[path]?.[method];
  return isNode(item) ? item : undefined;
}

function requestContent(op: Node | undefined): Node | undefined {
  const body = op?.requestBody;
  if (!isNode(body) || !isNode(body.content)) return undefined;
  const json = body.content['application/json'];
  return isNode(json) ? json : undefined;
}

/** schemas/eql.schema.json as components: `$defs` become siblings and `#/$defs/x` refs `#/components/schemas/x`. */
function addEqlSchema(schemas: Node): void {
  const { $schema: _dialect, $id: _id, $defs, ...request } = structuredClone(eqlSchema) as unknown as Node;
  const defs = isNode($defs) ? $defs : {};
  const rewritten = rewrite(request) as Node;
  for (const name of ['QueryRequest', ...Object.keys(defs)]) {
    if (name in schemas) throw new Error(`OpenAPI components.schemas.${name} exists already: rename the EQL definition or the route schema`);
  }
  schemas.QueryRequest = rewritten;
  for (const [name, def] of Object.entries(defs)) schemas[name] = rewrite(def);
  for (const schema of Object.values(schemas)) addDiscriminatorMappings(schema, schemas);
  alternativesForGenerators(schemas);
}

/**
 * The EQL schema chooses between shapes with `if`/`then`/`else` (its diagnostics name the shape the user
 * meant), which code generators do not read (openapi-typescript makes `never` of it). Each such choice
 * also gets the `oneOf` of its branches: every document valid before is valid after (exactly one branch
 * holds where the choice does), and generated types name the alternatives.
 */
function alternativesForGenerators(schemas: Node): void {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const add = (name: string, oneOf: Node[]) => {
    const schema = schemas[name];
    if (isNode(schema) && 'if' in schema && !('oneOf' in schema)) schema.oneOf = oneOf;
  };
  add('conditionGroup', [ref('andGroup'), ref('orGroup')]);
  add('conditionNode', [ref('condition'), ref('conditionGroup')]);
  add('operand', [ref('liveOperand'), { type: 'number' }]);
}

/** Rewrites `#/$defs/` refs and drops `tsType` (a hint of the type generator, not JSON Schema). */
function rewrite(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewrite);
  if (!isNode(value)) return value;
  const out: Node = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'tsType') continue;
    out[key] = key === '$ref' && typeof child === 'string' ? child.replace(/^#\/\$defs\//, '#/components/schemas/') : rewrite(child);
  }
  return out;
}

/**
 * An OpenAPI discriminator names the schema of each value: where every branch of the `oneOf` is a
 * reference whose discriminating property is a `const` or an `enum`, the mapping lists them.
 */
function addDiscriminatorMappings(value: unknown, schemas: Node): void {
  if (Array.isArray(value)) {
    for (const item of value) addDiscriminatorMappings(item, schemas);
    return;
  }
  if (!isNode(value)) return;
  const discriminator = value.discriminator;
  if (isNode(discriminator) && typeof discriminator.propertyName === 'string' && Array.isArray(value.oneOf)) {
    const property = discriminator.propertyName;
    const mapping: Record<string, string> = {};
    const complete = value.oneOf.every((branch) => {
      const ref = isNode(branch) && typeof branch.$ref === 'string' ? branch.$ref : undefined;
      const target = ref ? schemas[ref.slice('#/components/schemas/'.length)] : undefined;
      const discriminating = isNode(target) && isNode(target.properties) ? target.properties[property] : undefined;
      if (!ref || !isNode(discriminating)) return false;
      const values = 'const' in discriminating ? [discriminating.const] : Array.isArray(discriminating.enum) ? discriminating.enum : [];
      for (const name of values) if (typeof name === 'string') mapping[name] = ref;
      return values.length > 0;
    });
    if (complete) discriminator.mapping = mapping;
  }
  for (const child of Object.values(value)) addDiscriminatorMappings(child, schemas);
}

/** The error body is the same on every route: one `Error` component. */
function shareErrorSchema(paths: Record<string, Node>, schemas: Node): void {
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      if (!isNode(op) || !isNode(op.responses)) continue;
      for (const response of Object.values(op.responses)) {
        if (!isNode(response) || !isNode(response.content)) continue;
        const json = response.content['application/json'];
        if (!isNode(json) || !isErrorSchema(json.schema)) continue;
        const { description: _description, ...shape } = json.schema;
        schemas.Error ??= { ...shape, description: 'Every error: {success: false, error: {code, message, details?}} (docs/http-api.md lists the codes)' };
        json.schema = { $ref: '#/components/schemas/Error' };
      }
    }
  }
}

function isErrorSchema(schema: unknown): schema is Node {
  if (!isNode(schema) || typeof schema.description !== 'string' || !/^Error [0-9]{3}$/.test(schema.description)) return false;
  const success = isNode(schema.properties) ? schema.properties.success : undefined;
  // @fastify/swagger writes `const: false` as `enum: [false]`.
  return isNode(success) && (success.const === false || (Array.isArray(success.enum) && success.enum.length === 1 && success.enum[0] === false));
}

const errorResponse = (description: string): Node => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

/** The SSE routes: their frames, Last-Event-ID as a header or a query parameter, and their statuses. */
function describeStreams(paths: Record<string, Node>): void {
  for (const path of STREAMS) {
    const op = operation(paths, path, 'get');
    if (!op) continue;
    const single = path.includes('{queryId}');
    op.summary = single ? 'Notifications of one query (Server-Sent Events)' : 'Notifications of all the caller\'s queries (Server-Sent Events)';
    op.description =
      'Frames `id: <notification id>`, `event: <name>`, `data: <JSON>`: first `retry:` and `ready` ({lastEventId' +
      (single ? ', queryId, status' : '') +
      '}), then every notification after Last-Event-ID, each new one as `notification:new` (spec 2.10) followed by ' +
      '`notification:count` ({unread}), and a `: keep-alive` comment every 20 s.' +
      (single ? ' When the query is done: `event: end` ({queryId, status}), then the stream closes.' : '');
    // The route schema declares lastEventId (query strings are closed); it is described once, here.
    const parameters = (Array.isArray(op.parameters) ? (op.parameters as unknown[]) : []).filter((parameter) => !(isNode(parameter) && parameter.in === 'query' && parameter.name === 'lastEventId'));
    for (const parameter of parameters) {
      if (isNode(parameter) && parameter.name === 'last-event-id') parameter.description = 'The id of the last notification received; the stream resumes after it';
    }
    parameters.push({
      in: 'query',
      name: 'lastEventId',
      required: false,
      description: 'Last-Event-ID for clients that cannot set headers',
      schema: { type: 'string', pattern: '^[0-9]{1,15}$' },
    });
    op.parameters = parameters;
    op.responses = {
      200: {
        description: 'The event stream',
        content: { 'text/event-stream': { schema: { type: 'string', description: 'Server-Sent Events frames (see the operation description)' } } },
      },
      ...(single ? { 204: { description: 'The query is done and nothing is left after Last-Event-ID: EventSource clients stop reconnecting' } } : {}),
      400: errorResponse('invalid_last_event_id'),
      401: errorResponse('Missing, unknown, disabled or expired API key'),
      403: errorResponse('Auto is not enabled for this key'),
      ...(single ? { 404: errorResponse('Unknown query (or another key\'s)'), 410: errorResponse('The query was deleted') } : {}),
      429: errorResponse('Rate limit or quota exceeded'),
    };
  }
}

/** Fixed key order: the top level as the OpenAPI specification lists it, paths, methods, statuses and components sorted. */
function ordered(doc: Node): Node {
  const out: Node = {};
  for (const key of [...TOP_ORDER, ...Object.keys(doc).filter((key) => !TOP_ORDER.includes(key)).sort()]) {
    if (doc[key] !== undefined) out[key] = doc[key];
  }
  if (isNode(out.paths)) {
    const paths = out.paths;
    out.paths = Object.fromEntries(
      Object.keys(paths)
        .sort()
        .map((path) => [path, orderOperations(paths[path])]),
    );
  }
  if (isNode(out.components)) {
    const components = out.components;
    out.components = Object.fromEntries(
      Object.keys(components)
        .sort()
        .map((key) => [key, isNode(components[key]) ? sortKeys(components[key]) : components[key]]),
    );
  }
  return out;
}

function orderOperations(item: unknown): unknown {
  if (!isNode(item)) return item;
  const out: Node = {};
  for (const key of [...METHOD_ORDER.filter((method) => method in item), ...Object.keys(item).filter((key) => !METHOD_ORDER.includes(key)).sort()]) {
    const op = item[key];
    out[key] = isNode(op) && isNode(op.responses) ? { ...op, responses: sortKeys(op.responses) } : op;
  }
  return out;
}

const sortKeys = (node: Node): Node => Object.fromEntries(Object.keys(node).sort().map((key) => [key, node[key]]));
