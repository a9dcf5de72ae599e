import { describe, expect, it } from 'vitest';
import { editDistanceCells } from '../../syntax/src/recover/spelling.js';
import { createEqlServices } from '../src/index.js';
import { ManualTimers, openDocument } from './support/services.js';

/**
 * The editor (VS Code, the console's worker) reads what is pasted into it with the same parser as the
 * host: a buffer that is one huge word must not freeze it on "did you mean" work. The work is counted in
 * alignment cells of the spelling suggestions, never timed.
 */

const everywhere = { start: { line: 0, character: 0 }, end: { line: 9_999, character: 0 } };

describe('a document that is one huge word', () => {
  it('is diagnosed, hovered and offered code actions without any spelling work', () => {
    const huge = 'x'.repeat(250_000);
    const before = editDistanceCells();
    const { services, validated } = openDocument(huge);
    const document = validated();
    const diagnostics = services.diagnostics.diagnostics(document);
    services.codeActions.codeActions(document, { range: everywhere, context: { diagnostics } });
    services.hover.hover(document, { line: 0, character: 10 });
    expect(editDistanceCells() - before).toBe(0);
    // Reported as a mistake, with no guess at what was meant.
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics.map((diagnostic) => diagnostic.message).join('\n')).not.toMatch(/did you mean/);
  });

  it('costs no more when the word is pasted again after each edit', () => {
    const { services, uri, validated } = openDocument('when price of BTC > 1\nthen notify "x" as n\n', { services: createEqlServices({ timers: new ManualTimers() }) });
    validated();
    const before = editDistanceCells();
    for (let version = 2; version < 6; version += 1) {
      services.documents.change(uri, version, [{ text: `${'y'.repeat(60_000 * version)}\nthen notify "x" as n\n` }]);
      expect(services.diagnostics.diagnostics(validated()).length).toBeGreaterThan(0);
    }
    expect(editDistanceCells() - before).toBe(0);
  });
});
