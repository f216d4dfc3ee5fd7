/** An existing variable as the plan needs it. */
export interface ExistingVar {
  id: number;
  key: string;
  environment_ids: number[];
}

export type ImportOp =
  /** Give the variable a new value (it is only in environments the import targets). */
  | { kind: 'update'; id: number; key: string; value: string }
  /** Take the targeted environments out of a variable that is also elsewhere (its value stays there). */
  | { kind: 'narrow'; id: number; key: string; environment_ids: number[] }
  | { kind: 'create'; key: string; value: string; environment_ids: number[] };

export interface ImportPlan {
  /** In the order to run them: narrowing first, so the new variables do not overlap. */
  ops: ImportOp[];
  /** Keys new to the targeted environments. */
  added: string[];
  /** Keys that get a new value in (some of) the targeted environments. */
  updated: string[];
}

/**
 * What importing `entries` into the `target` environments takes: one key has one value per
 * environment, so a key already set there is updated, and a variable shared with environments
 * outside the import keeps its value there.
 */
export function planImport(entries: { key: string; value: string }[], existing: ExistingVar[], target: number[]): ImportPlan {
  const targetSet = new Set(target);
  const narrows: ImportOp[] = [];
  const updates: ImportOp[] = [];
  const creates: ImportOp[] = [];
  const added: string[] = [];
  const updated: string[] = [];

  for (const entry of entries) {
    const sameKey = existing.filter((item) => item.key === entry.key);
    let uncovered = [...targetSet];
    let touched = false;
    for (const item of sameKey) {
      const inside = item.environment_ids.filter((id) => targetSet.has(id));
      if (inside.length === 0) continue;
      touched = true;
      if (inside.length === item.environment_ids.length) {
        updates.push({ kind: 'update', id: item.id, key: entry.key, value: entry.value });
        uncovered = uncovered.filter((id) => !inside.includes(id));
      } else {
        narrows.push({
          kind: 'narrow',
          id: item.id,
          key: entry.key,
          environment_ids: item.environment_ids.filter((id) => !targetSet.has(id)),
        });
      }
    }
    if (uncovered.length > 0) {
      creates.push({ kind: 'create', key: entry.key, value: entry.value, environment_ids: uncovered.sort((a, b) => a - b) });
    }
    (touched ? updated : added).push(entry.key);
  }

  return { ops: [...narrows, ...updates, ...creates], added, updated };
}
