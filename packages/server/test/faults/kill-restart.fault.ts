import { describe } from 'vitest';
import { faultScenario } from './support/scenario.js';

// Scenario 1 of issue 46: one host killed (SIGKILL) under a firing load and started again. Its
// partitions expire and go to the others, then come back.

describe('fault: one host killed and restarted', () => {
  faultScenario('kill1', 'kill -9 one host, restart', async (c) => {
    await c.kill(0);
    if (!(await c.waitUntil(() => c.balanced()))) console.warn('kill1: the two others never took every partition');
    await c.restart(0);
    await c.waitUntil(() => c.balanced());
  });
});
