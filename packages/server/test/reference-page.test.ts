import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testHost, type TestHost } from './support/host.js';

// The API reference page (issue 15, point 1): Swagger UI over the host's OpenAPI document, every asset
// served by the host itself (no CDN: it works offline), no key needed.

let host: TestHost;
beforeAll(async () => {
  host = await testHost();
});
afterAll(async () => {
  await host.close();
});

describe('GET /reference', () => {
  it('serves the page with its assets from the host, no other origin', async () => {
    const page = await host.app.inject({ method: 'GET', url: '/reference' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<title>EQL host: API reference</title>');
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const asset of assets) {
      expect(asset, 'an asset of another origin').toMatch(/^\/reference\/static\//);
      const answer = await host.app.inject({ method: 'GET', url: asset });
      expect(answer.statusCode, asset).toBe(200);
    }
  });

  it('shows the same document as /openapi.json, with its operation ids', async () => {
    const shown = (await host.app.inject({ method: 'GET', url: '/reference/json' })).json<{ paths: Record<string, Record<string, { operationId?: string }>> }>();
    const served = (await host.app.inject({ method: 'GET', url: '/openapi.json' })).json<unknown>();
    expect(shown).toEqual(served);
    expect(shown.paths['/v2/auto/queries']!.post!.operationId).toBe('createQuery');
  });
});
