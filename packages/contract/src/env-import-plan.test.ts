import { describe, expect, it } from 'vitest';
import { planImport } from './env-import-plan';

const PROD = 1;
const STAGING = 2;

describe('planImport', () => {
  it('creates keys that are new, for the environments chosen', () => {
    const plan = planImport([{ key: 'A', value: '1' }], [], [PROD, STAGING]);
    expect(plan.added).toEqual(['A']);
    expect(plan.updated).toEqual([]);
    expect(plan.ops).toEqual([{ kind: 'create', key: 'A', value: '1', environment_ids: [PROD, STAGING] }]);
  });

  it('updates a key already set in exactly those environments', () => {
    const plan = planImport(
      [{ key: 'A', value: 'new' }],
      [{ id: 7, key: 'A', environment_ids: [PROD, STAGING] }],
      [PROD, STAGING],
    );
    expect(plan.updated).toEqual(['A']);
    expect(plan.ops).toEqual([{ kind: 'update', id: 7, key: 'A', value: 'new' }]);
  });

  it('updates per environment and creates the value for an environment that lacked the key', () => {
    const plan = planImport([{ key: 'A', value: 'v' }], [{ id: 7, key: 'A', environment_ids: [PROD] }], [PROD, STAGING]);
    expect(plan.updated).toEqual(['A']);
    expect(plan.ops).toEqual([
      { kind: 'update', id: 7, key: 'A', value: 'v' },
      { kind: 'create', key: 'A', value: 'v', environment_ids: [STAGING] },
    ]);
  });

  it('keeps the old value where the import does not go: the shared variable is narrowed first', () => {
    const plan = planImport(
      [{ key: 'A', value: 'staging-only' }],
      [{ id: 7, key: 'A', environment_ids: [PROD, STAGING] }],
      [STAGING],
    );
    expect(plan.updated).toEqual(['A']);
    expect(plan.ops).toEqual([
      { kind: 'narrow', id: 7, key: 'A', environment_ids: [PROD] },
      { kind: 'create', key: 'A', value: 'staging-only', environment_ids: [STAGING] },
    ]);
  });

  it('leaves variables of other environments alone and counts the key as added there', () => {
    const plan = planImport(
      [
        { key: 'A', value: '1' },
        { key: 'B', value: '2' },
      ],
      [
        { id: 7, key: 'A', environment_ids: [PROD] },
        { id: 8, key: 'C', environment_ids: [STAGING] },
      ],
      [STAGING],
    );
    expect(plan.added).toEqual(['A', 'B']);
    expect(plan.updated).toEqual([]);
    expect(plan.ops.map((op) => op.kind)).toEqual(['create', 'create']);
  });
});
