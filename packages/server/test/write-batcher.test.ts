import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ItemOutcome, WriteBatcher, WriteBatchers } from '../src/store/pg/write-batcher.js';

// Group commit's batcher (issue 47): what is added in one turn goes in one batch, what is added while a
// batch is written goes in the next, one batch at a time, each item answered with its own outcome.

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A batcher whose writes the test lets finish one by one; each item answers its double, or fails when odd and `failOdd`. */
function controlled(maxItems?: number) {
  const batches: number[][] = [];
  const finish: Array<() => void> = [];
  let inFlight = 0;
  let most = 0;
  const batcher = new WriteBatcher<number, number>({
    maxItems,
    write: async (items) => {
      batches.push(items);
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => finish.push(resolve));
      inFlight -= 1;
      return items.map((item): ItemOutcome<number> => (item % 7 === 3 ? { error: new Error(`item ${item} refused`) } : { value: item * 2 }));
    },
  });
  return { batcher, batches, finish, most: () => most };
}

describe('WriteBatcher', () => {
  it('writes what one turn adds as one batch, and what comes meanwhile as the next', async () => {
    const { batcher, batches, finish } = controlled();
    const first = [1, 2, 3].map((item) => batcher.add(item));
    await turn();
    expect(batches).toEqual([[1, 2, 3]]);
    const second = [4, 5].map((item) => batcher.add(item));
    await turn();
    expect(batches).toHaveLength(1);
    finish.shift()!();
    await expect(first[0]).resolves.toBe(2);
    await expect(first[2]).rejects.toThrow('item 3 refused');
    await turn();
    expect(batches).toEqual([[1, 2, 3], [4, 5]]);
    finish.shift()!();
    await expect(Promise.all(second)).resolves.toEqual([8, 10]);
  });

  it('fails every item of a batch whose write throws, and goes on with the next', async () => {
    let calls = 0;
    const batcher = new WriteBatcher<number, number>({
      write: (items) => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error('connection lost')) : Promise.resolve(items.map((item) => ({ value: item })));
      },
    });
    const failed = [1, 2].map((item) => batcher.add(item));
    await expect(Promise.allSettled(failed)).resolves.toEqual([
      { status: 'rejected', reason: new Error('connection lost') },
      { status: 'rejected', reason: new Error('connection lost') },
    ]);
    await expect(batcher.add(3)).resolves.toBe(3);
  });

  it('any adds and turns: every item answers its own outcome once, in batches of at most maxItems in the order added, one batch at a time', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.constant('turn' as const), fc.integer({ min: 1, max: 3 })), { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), async (script, maxItems) => {
        const { batcher, batches, finish, most } = controlled(maxItems);
        let next = 0;
        const added: Array<{ item: number; outcome: Promise<PromiseSettledResult<number>> }> = [];
        for (const step of script) {
          if (step === 'turn') {
            await turn();
            finish.shift()?.();
            continue;
          }
          for (let count = 0; count < step; count += 1) {
            const item = (next += 1);
            added.push({ item, outcome: batcher.add(item).then((value) => ({ status: 'fulfilled' as const, value }), (reason: unknown) => ({ status: 'rejected' as const, reason })) });
          }
        }
        while (added.length > 0 && batches.flat().length < added.length) {
          await turn();
          finish.shift()?.();
        }
        while (finish.length > 0) finish.shift()!();
        const settled = await Promise.all(added.map((entry) => entry.outcome));
        settled.forEach((outcome, index) => {
          const item = added[index]!.item;
          if (item % 7 === 3) expect(outcome).toMatchObject({ status: 'rejected' });
          else expect(outcome).toEqual({ status: 'fulfilled', value: item * 2 });
        });
        expect(batches.flat()).toEqual(added.map((entry) => entry.item));
        for (const batch of batches) expect(batch.length).toBeLessThanOrEqual(maxItems);
        expect(most()).toBeLessThanOrEqual(1);
      }),
      { numRuns: 60 },
    );
  });

  it('forgets a named batcher once it is idle, and makes a new one for the next write', async () => {
    const batchers = new WriteBatchers();
    const made: string[] = [];
    const options = (name: string) => () => {
      made.push(name);
      return { write: (items: number[]) => Promise.resolve(items.map((item) => ({ value: item }))) };
    };
    const one = batchers.of<number, number>('lease-1', options('lease-1'));
    expect(batchers.of<number, number>('lease-1', options('lease-1'))).toBe(one);
    await one.add(1);
    expect(batchers.of<number, number>('lease-1', options('lease-1'))).not.toBe(one);
    expect(made).toEqual(['lease-1', 'lease-1']);
  });
});
