import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, expect, it } from 'vitest';

// Types generated from schemas/openapi.json by openapi-typescript (what a typed client is built from)
// compile, and they are precise: a query request of the README type-checks, a wrong operator, a missing
// stepId or an unknown action type do not (each marked @ts-expect-error, which fails if it compiles).

const dir = mkdtempSync(join(tmpdir(), 'eql-openapi-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const USE = `import type { components, operations, paths } from './openapi.js';
type Body = paths['/v2/auto/queries']['post']['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never;
type Created = operations['createQuery']['responses'][201]['content']['application/json'];
type Failure = components['schemas']['Error'];

export const body: Body = {
  title: 'BTC above 100k',
  query: {
    conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100000 }, { OR: [{ source: 'price', method: 'current', args: { symbol: 'ETH' }, operator: 'crosses_above', value: 4000 }] }] },
    actions: [{ stepId: 'n', type: 'notify', params: { message: 'BTC is above 100k' } }],
    expiresIn: '24h',
  },
};
// @ts-expect-error an operator EQL does not have
export const wrongOperator: Body = { query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '=>', value: 1 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'm' } }] } };
// @ts-expect-error a step without its stepId
export const noStepId: Body = { query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ type: 'notify', params: { message: 'm' } }] } };
// @ts-expect-error an action type EQL does not have
export const unknownAction: Body = { query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'f', type: 'fax', params: {} }] } };
export const created: Created['queryId'] = 'q-1';
export const failure: Failure = { success: false, error: { code: 'validate_first', message: 'validate the query first' } };
`;

it('openapi-typescript turns schemas/openapi.json into types that compile and refuse wrong requests', { timeout: 120_000 }, async () => {
  const document = JSON.parse(readFileSync(fileURLToPath(new URL('../schemas/openapi.json', import.meta.url)), 'utf8')) as Parameters<typeof openapiTS>[0];
  writeFileSync(join(dir, 'openapi.d.ts'), astToString(await openapiTS(document, { silent: true })));
  writeFileSync(join(dir, 'use.ts'), USE);
  const program = ts.createProgram([join(dir, 'use.ts')], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: false, types: [] });
  const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => `${diagnostic.file?.fileName ?? ''}:${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
  expect(problems).toEqual([]);
});
