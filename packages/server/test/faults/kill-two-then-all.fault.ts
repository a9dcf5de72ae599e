import { describe } from 'vitest';
import { faultScenario } from './support/scenario.js';

// Scenario 5 of issue 46: two hosts killed and restarted, then all three killed and restarted. The
// issue saw alerts lost and invented here (a reused trigger index answered with an old notification).

describe('fault: kill two, restart, kill all, restart', () => {
  faultScenario('killall', 'kill -9 two hosts, restart, kill -9 all three, restart', async (c) => {
    await c.kill(0);
    await c.kill(1);
    if (!(await c.waitUntil(() => c.balanced()))) console.warn('killall: the survivor never took every partition');
    await c.restart(0);
    await c.restart(1);
    await c.waitUntil(() => c.balanced());
    await c.kill(0);
    await c.kill(1);
    await c.kill(2);
    for (const index of [0, 1, 2]) await c.restart(index);
    await c.waitUntil(() => c.balanced());
  });
});
