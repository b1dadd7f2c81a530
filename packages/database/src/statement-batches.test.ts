import { describe, expect, it } from '@jest/globals';
import { eventually } from '@feedback/test-support';
import { statementBatches } from './statement-batches.js';

/** A statement the test finishes by hand; notes the keys of every batch it ran. */
function controlledStatement() {
  const batches: number[][] = [];
  const finishers: Array<(fail?: Error) => void> = [];
  const run = (keys: readonly number[]) => {
    batches.push([...keys]);
    return new Promise<number[]>((resolve, reject) => {
      finishers.push((fail) => (fail ? reject(fail) : resolve(keys.map((key) => key * 10))));
    });
  };
  return { batches, finishers, run };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('statementBatches', () => {
  it('sends requests made in the same turn as one statement, at the next turn', async () => {
    const statement = controlledStatement();
    const loader = statementBatches(statement.run, { maxBatchSize: 100 });
    const answers = Promise.all([loader.load(1), loader.load(2), loader.load(3)]);
    expect(statement.batches).toEqual([]);
    await turn();
    expect(statement.batches).toEqual([[1, 2, 3]]);
    statement.finishers[0]!();
    await expect(answers).resolves.toEqual([10, 20, 30]);
  });

  it('while `concurrency` statements run, gathers later requests into one statement that goes when one finishes', async () => {
    const statement = controlledStatement();
    const loader = statementBatches(statement.run, { concurrency: 2, maxBatchSize: 100 });
    const first = loader.load(1);
    await turn();
    const second = loader.load(2);
    await turn();
    const waiting = [loader.load(3)];
    await turn();
    waiting.push(loader.load(4), loader.load(5));
    await turn();
    expect(statement.batches).toEqual([[1], [2]]);

    statement.finishers[0]!();
    await expect(first).resolves.toBe(10);
    await turn();
    expect(statement.batches).toEqual([[1], [2], [3, 4, 5]]);
    statement.finishers[1]!();
    statement.finishers[2]!();
    await expect(Promise.all([second, ...waiting])).resolves.toEqual([20, 30, 40, 50]);
  });

  it('with gatherMs, holds a request that finds a slot free for that long, for others to join it', async () => {
    const statement = controlledStatement();
    // A gather long enough that the 5 ms between the two requests cannot outlast it, however
    // slow the machine; the test ends as soon as the statement starts, not when the gather ends.
    const loader = statementBatches(statement.run, { maxBatchSize: 100, gatherMs: 1000 });
    const answers = [loader.load(1)];
    await new Promise((resolve) => setTimeout(resolve, 5));
    answers.push(loader.load(2));
    await turn();
    expect(statement.batches).toEqual([]);
    await eventually(() => (statement.batches.length > 0 ? true : undefined), { what: 'the gathered statement', timeoutMs: 10_000 });
    expect(statement.batches).toEqual([[1, 2]]);
    statement.finishers[0]!();
    await expect(Promise.all(answers)).resolves.toEqual([10, 20]);
  });

  it('frees the slot of a statement that failed, and fails only its own requests', async () => {
    const statement = controlledStatement();
    const loader = statementBatches(statement.run, { concurrency: 1, maxBatchSize: 100 });
    const failing = loader.load(1);
    await turn();
    const next = loader.load(2);
    await turn();
    expect(statement.batches).toEqual([[1]]);
    statement.finishers[0]!(new Error('connection lost'));
    await expect(failing).rejects.toThrow('connection lost');
    await turn();
    expect(statement.batches).toEqual([[1], [2]]);
    statement.finishers[1]!();
    await expect(next).resolves.toBe(20);
  });

  it('splits a gathering larger than maxBatchSize into statements of at most that many', async () => {
    const statement = controlledStatement();
    const loader = statementBatches(statement.run, { maxBatchSize: 2 });
    const answers = Promise.all([1, 2, 3, 4, 5].map((key) => loader.load(key)));
    await turn();
    expect(statement.batches).toEqual([[1, 2], [3, 4]]);
    statement.finishers.forEach((finish) => finish());
    await turn();
    await turn();
    statement.finishers.forEach((finish) => finish());
    await expect(answers).resolves.toEqual([10, 20, 30, 40, 50]);
    expect(statement.batches).toEqual([[1, 2], [3, 4], [5]]);
  });
});
