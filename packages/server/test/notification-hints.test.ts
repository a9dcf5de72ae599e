import { expect, it } from 'vitest';
import { oncePerTurnByKey } from '../src/scale-out/notification-hints.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

it('hints each key once per turn of the event loop, however many notifications it stored, and again in a later turn', async () => {
  const sent: number[] = [];
  const hint = oncePerTurnByKey((keyId) => sent.push(keyId));
  for (let index = 0; index < 1_000; index += 1) hint(index % 3 === 0 ? 7 : 8);
  expect(sent).toEqual([]);
  await turn();
  expect(sent.sort()).toEqual([7, 8]);
  hint(8);
  await turn();
  expect(sent).toEqual([7, 8, 8]);
});
