import { cruise, type IForbiddenRuleType } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

/**
 * The shape of the code, checked with dependency-cruiser on every run: no import cycles, arrows only
 * pointing down the layers (core ← syntax, adapters ← language server ← console ← host ← command line), and a core
 * and a text form free of Node I/O, HTTP and LSP. Cross-package imports (`@eql/core`) resolve to the
 * sources through the `@eql/source` export condition, so the arrows between packages are seen.
 */

const SOURCES = ['packages/core/src', 'packages/syntax/src', 'packages/adapters/src', 'packages/market-data/src', 'packages/llm/src', 'packages/builder/src', 'packages/venue-ccxt/src', 'packages/x402/src', 'packages/client/src', 'packages/console/src', 'packages/server/src', 'packages/cli/src', 'packages/language-server/src'];
const IO_PACKAGES = 'node_modules/(fastify|@fastify/|undici|ccxt|better-sqlite3|vscode-languageserver|vscode-languageclient|vscode-jsonrpc|openai|viem|pino|pg|@nats-io/)';

/** A package may import only the packages listed (and itself). */
const only = (from: string, allowed: string[]): IForbiddenRuleType => ({
  name: `${from}-layer`,
  comment: `${from} imports only ${allowed.join(', ') || 'itself'}`,
  severity: 'error',
  from: { path: `^packages/${from}/` },
  to: { path: `^packages/(?!(${[from, ...allowed].join('|')})/)` },
});

const FORBIDDEN: IForbiddenRuleType[] = [
  { name: 'no-circular', severity: 'error', from: { path: '^packages/' }, to: { circular: true } },
  { name: 'core-no-node', comment: 'the core runs anywhere: no Node built-ins', severity: 'error', from: { path: '^packages/core/src' }, to: { dependencyTypes: ['core'] } },
  { name: 'core-no-io', comment: 'the core knows nothing of HTTP, SQL, venues or LSP', severity: 'error', from: { path: '^packages/core/src' }, to: { path: IO_PACKAGES } },
  {
    name: 'x402-framework-free',
    comment: 'the root of @eql/x402 serves any server: Fastify only under src/fastify',
    severity: 'error',
    from: { path: '^packages/x402/src/(?!fastify/)' },
    to: { path: 'node_modules/(fastify|fastify-plugin|@fastify/)' },
  },
  {
    name: 'ccxt-only-in-venue-ccxt',
    comment: 'ccxt (a large library) comes only with @eql/venue-ccxt, which the host loads when configured',
    severity: 'error',
    from: { path: '^packages/(?!venue-ccxt/)' },
    to: { path: 'node_modules/ccxt' },
  },
  { name: 'syntax-no-node', severity: 'error', from: { path: '^packages/syntax/src' }, to: { dependencyTypes: ['core'] } },
  { name: 'syntax-no-io', severity: 'error', from: { path: '^packages/syntax/src' }, to: { path: IO_PACKAGES } },
  only('core', []),
  only('syntax', ['core']),
  only('adapters', ['core']),
  only('language-server', ['core', 'syntax']),
  only('market-data', ['core']),
  only('llm', ['core', 'market-data']),
  only('builder', ['core', 'llm']),
  only('venue-ccxt', ['core', 'adapters']),
  only('x402', []),
  only('client', ['core']),
  { name: 'client-no-node', comment: 'the client runs in browsers and workers too: no Node built-ins', severity: 'error', from: { path: '^packages/client/src' }, to: { dependencyTypes: ['core'] } },
  only('console', ['core', 'client', 'language-server']),
  { name: 'console-no-node', comment: 'the console runs in a browser: no Node built-ins', severity: 'error', from: { path: '^packages/console/src' }, to: { dependencyTypes: ['core'] } },
  only('server', ['core', 'syntax', 'adapters', 'market-data', 'llm', 'builder', 'x402', 'venue-ccxt', 'console']),
  only('cli', ['core', 'syntax', 'adapters', 'market-data', 'llm', 'builder', 'x402', 'venue-ccxt', 'client', 'server']),
];

describe('the dependency graph', () => {
  it('has no cycles, no upward arrows, and a core free of Node I/O, HTTP and LSP', { timeout: 120_000 }, async () => {
    const { output } = await cruise(SOURCES, {
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['@eql/source', 'import', 'types', 'default'], extensions: ['.ts', '.js', '.mjs', '.json'] },
      ruleSet: { forbidden: FORBIDDEN },
      validate: true,
    });
    if (typeof output === 'string') throw new Error('dependency-cruiser gave a text report');
    const violations = output.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}${violation.cycle ? ` (cycle: ${violation.cycle.map((step) => step.name).join(' -> ')})` : ''}`);
    expect(violations).toEqual([]);
    // The check sees what it must: every package, and arrows between them resolved to their sources.
    expect(output.summary.totalCruised).toBeGreaterThan(300);
    const server = output.modules.find((module) => module.source === 'packages/server/src/host/process-runner.ts');
    expect(server?.dependencies.map((dependency) => dependency.resolved)).toContain('packages/core/src/index.ts');
  });
});
