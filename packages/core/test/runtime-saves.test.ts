import { of, throwError } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { RuntimeState, StateStore } from '../src/engine/interfaces.js';
import { RuntimeSaves } from '../src/engine/runtime-saves.js';

const STATE = { status: 'active', triggerCount: 0 } as unknown as RuntimeState;
const query = { id: 'q1', runtimeState: () => STATE };

/** A store whose saveRuntime and forgetQuery answer with what `answer` gives, recording each call. */
function storeAnswering(answer: () => unknown, withForget = true): { store: StateStore; calls: string[] } {
  const calls: string[] = [];
  const store = {
    saveRuntime: (queryId: string, state: RuntimeState) => {
      calls.push(`save ${queryId} ${state.status}`);
      return answer();
    },
    ...(withForget
      ? {
          forgetQuery: (queryId: string) => {
            calls.push(`forget ${queryId}`);
            return answer();
          },
        }
      : {}),
  } as unknown as StateStore;
  return { store, calls };
}

function savesOver(answer: () => unknown, withForget = true) {
  const { store, calls } = storeAnswering(answer, withForget);
  const problems: string[] = [];
  const saves = new RuntimeSaves(store, (queryId, error) => problems.push(`${queryId}: ${error instanceof Error ? error.message : String(error)}`));
  return { saves, calls, problems };
}

describe('RuntimeSaves', () => {
  it('goes on at once when the store answers at once', () => {
    const { saves, calls, problems } = savesOver(() => undefined);
    const done: string[] = [];
    saves.saveThen(query, () => done.push('then'));
    expect(calls).toEqual(['save q1 active']);
    expect(done).toEqual(['then']);
    expect(problems).toEqual([]);
  });

  it('goes on once a pending answer settles, and not before', async () => {
    let settle: () => void = () => undefined;
    const { saves, problems } = savesOver(() => new Promise<void>((resolve) => (settle = resolve)));
    const done: string[] = [];
    saves.saveThen(query, () => done.push('then'));
    await Promise.resolve();
    expect(done).toEqual([]);
    settle();
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toEqual(['then']);
    expect(problems).toEqual([]);
  });

  it('goes on after an observable answer too', () => {
    const { saves } = savesOver(() => of(undefined));
    const done: string[] = [];
    saves.saveThen(query, () => done.push('then'));
    expect(done).toEqual(['then']);
  });

  it('reports a store that throws as a problem of the query, and never goes on', () => {
    const { saves, problems } = savesOver(() => {
      throw new Error('disk full');
    });
    const done: string[] = [];
    saves.saveThen(query, () => done.push('then'));
    saves.save(query);
    saves.forget('q2');
    expect(done).toEqual([]);
    expect(problems).toEqual(['q1: disk full', 'q1: disk full', 'q2: disk full']);
  });

  it('reports a rejected or failing answer as a problem of the query, and never goes on', async () => {
    const answers = [Promise.reject(new Error('connection lost')), throwError(() => new Error('stream failed'))];
    const { saves, problems } = savesOver(() => answers.shift());
    const done: string[] = [];
    saves.saveThen(query, () => done.push('then'));
    saves.save(query);
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toEqual([]);
    expect(problems.sort()).toEqual(['q1: connection lost', 'q1: stream failed']);
  });

  it('forgets through the store when it can, and does nothing when it cannot', () => {
    const able = savesOver(() => undefined);
    able.saves.forget('q7');
    expect(able.calls).toEqual(['forget q7']);
    const unable = savesOver(() => undefined, false);
    unable.saves.forget('q7');
    expect(unable.calls).toEqual([]);
    expect(unable.problems).toEqual([]);
  });
});
