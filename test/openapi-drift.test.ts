import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { HMAC_ROUTE_TABLE } from '@eql/core';
import { buildServer } from '../packages/server/src/index.js';
import { generate, generateTypes, target, typesTarget } from '../scripts/openapi.mjs';

// schemas/openapi.json derives from the route schemas and schemas/eql.schema.json (scripts/openapi.mjs,
// packages/server/src/openapi.ts); CI fails when it drifts. No OpenAPI validator is installed, so the
// document is checked structurally here, and its query request schema is compiled with ajv (JSON
// Schema 2020-12, the dialect of OpenAPI 3.1) and run over the EQL fixtures.

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

const doc = JSON.parse(readFileSync(new URL('../schemas/openapi.json', import.meta.url), 'utf8')) as Node;
const paths = doc.paths as Record<string, Record<string, Node>>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const operations = Object.entries(paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, op]) => ({ path, method, op })),
);

/** Resolves a local reference (`#/a/b`) in the document. */
function resolve(ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const part of ref.slice(2).split('/')) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isNode(node) || !(key in node)) return undefined;
    node = node[key];
  }
  return node;
}

function collect(value: unknown, visit: (node: Node, path: string) => void, path = '#'): void {
  if (Array.isArray(value)) value.forEach((item, index) => collect(item, visit, `${path}/${index}`));
  else if (isNode(value)) {
    visit(value, path);
    for (const [key, child] of Object.entries(value)) collect(child, visit, `${path}/${key}`);
  }
}

describe('schemas/openapi.json', () => {
  it('matches what the host serves, and so do the client\'s types (run `npm run openapi` after changing a route schema or the EQL schema)', { timeout: 60_000 }, async () => {
    const committed = await readFile(target, 'utf8');
    const served = await generate(buildServer);
    expect(committed, 'schemas/openapi.json is out of date').toBe(served);
    expect(await readFile(typesTarget, 'utf8'), 'packages/client/src/generated/openapi.ts is out of date').toBe(await generateTypes(served));
  });

  it('is an OpenAPI 3.1 document with the security scheme, tags and components it names', () => {
    expect(doc.openapi).toBe('3.1.0');
    const info = doc.info as { title?: unknown; version?: unknown };
    expect([typeof info.title, typeof info.version]).toEqual(['string', 'string']);
    const components = doc.components as { securitySchemes: Record<string, Node>; schemas: Record<string, unknown> };
    expect(components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'x-svc-api-key' });
    const requirements = [doc.security, ...operations.map(({ op }) => op.security)].filter((security) => security !== undefined) as Array<Array<Record<string, unknown>>>;
    for (const requirement of requirements.flat()) for (const name of Object.keys(requirement)) expect(components.securitySchemes).toHaveProperty(name);
    expect(paths['/v2/ping']!.get!.security).toEqual([]);
    for (const name of Object.keys(components.schemas)) expect(name).toMatch(/^[a-zA-Z0-9._-]+$/);
    const tags = new Set((doc.tags as Array<{ name: string }>).map((tag) => tag.name));
    for (const { op } of operations) for (const tag of (op.tags as string[] | undefined) ?? []) expect(tags.has(tag), `tag ${tag}`).toBe(true);
  });

  it('names every operation once (operationId) and summarizes it, and says where a host is (servers)', () => {
    const ids = operations.map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]*$/.test(id)), JSON.stringify(ids)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations.filter(({ op }) => typeof op.summary !== 'string' || op.summary === '').map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    expect((doc.servers as Array<{ url: string }>)[0]!.url).toBe('http://localhost:8787');
  });

  it('declares the signature of spec 5.2 on every route of its table: required where always signed, an alternative where the rule depends on the query', () => {
    const schemes = (doc.components as { securitySchemes: Record<string, Node> }).securitySchemes;
    expect(schemes.hmacSignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-svc-signature' });
    expect(schemes.hmacTimestamp).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-svc-timestamp' });
    const signed = { apiKey: [], hmacTimestamp: [], hmacSignature: [] };
    for (const row of HMAC_ROUTE_TABLE) {
      const op = paths[`/v2/auto${row.pattern.replace(/:([A-Za-z]+)/g, '{$1}')}`]![row.method.toLowerCase()]!;
      expect(op['x-eql-signature'], `${row.method} ${row.pattern}`).toEqual({ rule: row.rule, bodySigned: row.bodyInSignature });
      expect(op.security).toEqual(row.rule === 'always' ? [signed] : [{ apiKey: [] }, signed]);
    }
  });

  it('has every route of docs/http-api.md with its method', () => {
    const text = readFileSync(new URL('../docs/http-api.md', import.meta.url), 'utf8');
    const documented = new Set([...text.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/v2\/[^`?\s]*)/g)].map((match) => `${match[1]!.toLowerCase()} ${match[2]!}`));
    documented.add('get /v2/ping').add('get /v2/key-status');
    expect(documented.size).toBeGreaterThanOrEqual(26);
    const shape = (route: string) => route.replace(/\{[^}]+\}/g, '{}');
    const served = new Set(operations.map(({ path, method }) => shape(`${method} ${path}`)));
    const missing = [...documented].map(shape).filter((route) => !served.has(route));
    expect(missing).toEqual([]);
  });

  it('describes every response with a schema, and every path parameter', () => {
    for (const { path, method, op } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      const responses = op.responses as Record<string, Node>;
      expect(Object.keys(responses).length, where).toBeGreaterThan(0);
      expect(Object.keys(responses).some((status) => status.startsWith('2')), `${where} has a success response`).toBe(true);
      for (const [status, response] of Object.entries(responses)) {
        expect(status, where).toMatch(/^[1-5][0-9]{2}$/);
        expect(typeof response.description, `${where} ${status} description`).toBe('string');
        if (status === '204') {
          expect(response.content, `${where} 204 has no body`).toBeUndefined();
          continue;
        }
        const content = response.content as Record<string, Node> | undefined;
        expect(content && Object.keys(content).length, `${where} ${status} has content`).toBeTruthy();
        for (const [type, media] of Object.entries(content!)) expect(isNode(media.schema), `${where} ${status} ${type} has a schema`).toBe(true);
      }
      const parameters = (op.parameters as Array<{ in: string; name: string; required?: boolean; schema?: unknown }> | undefined) ?? [];
      const keys = parameters.map((parameter) => `${parameter.in}:${parameter.name}`);
      expect(new Set(keys).size, `${where} parameters are unique`).toBe(keys.length);
      for (const parameter of parameters) expect(isNode(parameter.schema), `${where} ${parameter.name} has a schema`).toBe(true);
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        expect(parameters.find((parameter) => parameter.in === 'path' && parameter.name === name)?.required, `${where} declares path parameter ${name!}`).toBe(true);
      }
      if (isNode(op.requestBody)) {
        const content = op.requestBody.content as Record<string, Node>;
        expect(isNode(content['application/json']?.schema), `${where} body schema`).toBe(true);
      }
    }
  });

  it('resolves every $ref inside the document, with no JSON Schema resource boundaries left', () => {
    const refs: string[] = [];
    collect(doc, (node, path) => {
      if (typeof node.$ref === 'string') refs.push(node.$ref);
      // A nested $id would change the base URI of the references below it.
      expect(node.$id, `$id at ${path}`).toBeUndefined();
    });
    expect(refs.length).toBeGreaterThan(50);
    const unresolved = [...new Set(refs)].filter((ref) => resolve(ref) === undefined);
    expect(unresolved).toEqual([]);
    expect(refs.filter((ref) => ref.includes('$defs'))).toEqual([]);
  });

  it('takes the query request of validate, create and draft upsert from the EQL schema', () => {
    for (const path of ['/v2/auto/queries/validate', '/v2/auto/queries', '/v2/auto/queries/drafts']) {
      const body = paths[path]!.post!.requestBody as { required: boolean; content: Record<string, { schema: unknown }> };
      expect(body.content['application/json']!.schema, path).toEqual({ $ref: '#/components/schemas/QueryRequest' });
    }
    const eql = JSON.parse(readFileSync(new URL('../schemas/eql.schema.json', import.meta.url), 'utf8')) as Node & { $defs: Record<string, unknown> };
    const schemas = (doc.components as { schemas: Record<string, Node> }).schemas;
    expect(Object.keys(eql.$defs).every((name) => name in schemas)).toBe(true);
    expect(schemas.QueryRequest!.required).toEqual(eql.required);
  });

  it('validates the EQL fixtures with its QueryRequest schema (ajv, JSON Schema 2020-12)', () => {
    const requireFromCore = createRequire(new URL('../packages/core/package.json', import.meta.url));
    const { Ajv2020 } = requireFromCore('ajv/dist/2020.js') as { Ajv2020: new (options: Node) => Ajv };
    const addFormats = requireFromCore('ajv-formats') as (ajv: Ajv, formats: string[]) => void;
    const ajv = new Ajv2020({ discriminator: true, strict: false, allErrors: false });
    addFormats(ajv, ['date-time', 'uri']);
    // ajv implements the discriminator of JSON Schema tools without OpenAPI's `mapping`; the rest is the document as written.
    const copy = structuredClone(doc);
    collect(copy, (node) => {
      if (isNode(node.discriminator)) delete node.discriminator.mapping;
    });
    ajv.addSchema(copy, 'openapi.json');
    const check = ajv.compile({ $ref: 'openapi.json#/components/schemas/QueryRequest' });
    const fixtures = new URL('../fixtures/eql/', import.meta.url);
    let valid = 0;
    for (const name of readdirSync(fixtures)) {
      const expected = JSON.parse(readFileSync(new URL(`${name}/expected.json`, fixtures), 'utf8')) as { valid: boolean };
      if (!expected.valid) continue;
      const input = JSON.parse(readFileSync(new URL(`${name}/input.json`, fixtures), 'utf8')) as unknown;
      expect(check(input), `${name}: ${JSON.stringify(check.errors)}`).toBe(true);
      valid += 1;
    }
    expect(valid).toBeGreaterThan(20);
    expect(check({})).toBe(false);
    expect(check({ query: { conditions: { AND: [] }, actions: [] } })).toBe(false);
    expect(check({ query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'n', type: 'notify', params: {} }] } })).toBe(false);
  });
});

interface Ajv {
  addSchema(schema: unknown, key: string): Ajv;
  compile(schema: unknown): ((data: unknown) => boolean) & { errors?: unknown };
}
