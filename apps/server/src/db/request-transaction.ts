import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from './client';

/**
 * One database transaction per mutating API request, so a change and its audit row commit
 * together or not at all. Services keep using `ctx.db`: while a request's handler runs, that
 * handle (a proxy made by `scopedDb`) points at the request's transaction, and a service's own
 * `db.transaction(...)` becomes a savepoint inside it.
 *
 * The transaction stays open until the answer is decided: `commit(write)` runs `write` (the
 * audit row) in it and commits before the answer leaves; `rollback()` undoes everything.
 */

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

type Outcome = { commit: true; write: (tx: Db) => Promise<void> } | { commit: false };

export type RequestTransaction = {
  /** The transaction while it is open; undefined once committed or rolled back. */
  readonly tx: Db | undefined;
  /** Writes the last rows (the audit row) in the transaction, then commits; throws when either fails. */
  commit(write: (tx: Db) => Promise<void>): Promise<void>;
  /** Undoes the request's changes. Never throws. */
  rollback(): Promise<void>;
  /** Runs `callback` once the transaction committed (never when it rolls back). */
  afterCommit(callback: () => void): void;
};

const scope = new AsyncLocalStorage<RequestTransaction>();
const roots = new WeakMap<object, Db>();

class RollbackRequested extends Error {}

/** A `Db` that follows the request transaction of the calling code, and the pool otherwise. */
export function scopedDb(root: Db): Db {
  const proxy = new Proxy(root, {
    get(target, property) {
      const active = scope.getStore()?.tx ?? target;
      const value: unknown = Reflect.get(active, property, active);
      return typeof value === 'function' ? value.bind(active) : value;
    },
  });
  roots.set(proxy, root);
  return proxy;
}

/** The pool-backed handle behind a scoped one: for writes that must persist whatever the request's outcome. */
export function unscopedDb(db: Db): Db {
  return roots.get(db) ?? db;
}

/** Opens a transaction on the pool for one request; resolves once BEGIN has run. */
export function openRequestTransaction(db: Db): Promise<RequestTransaction> {
  const root = unscopedDb(db);
  return new Promise((resolveOpened, rejectOpened) => {
    let decide: (outcome: Outcome) => void = () => undefined;
    const decided = new Promise<Outcome>((resolve) => {
      decide = resolve;
    });
    const committed: (() => void)[] = [];
    let current: Db | undefined;
    let opened = false;
    const finished = root
      .transaction(async (tx: Tx) => {
        current = tx as unknown as Db;
        opened = true;
        resolveOpened(handle);
        const outcome = await decided;
        if (!outcome.commit) throw new RollbackRequested();
        await outcome.write(tx as unknown as Db);
      })
      .finally(() => {
        current = undefined;
      });
    finished.catch((error: unknown) => {
      if (!opened) rejectOpened(error);
    });
    const handle: RequestTransaction = {
      get tx() {
        return current;
      },
      async commit(write) {
        decide({ commit: true, write });
        await finished;
        // Callbacks run outside the request's context: work they start must not follow a closed transaction.
        scope.exit(() => {
          for (const callback of committed) callback();
        });
      },
      async rollback() {
        decide({ commit: false });
        await finished.catch(() => undefined);
      },
      afterCommit(callback) {
        committed.push(callback);
      },
    };
  });
}

/** Handlers running in a request transaction now (their promises not settled yet). */
let running = 0;

/**
 * Runs a request handler with `ctx.db` pointing at its transaction. Once the last running handler
 * has settled, the scope is disabled until the next one: on Node 20 and 22 an enabled
 * AsyncLocalStorage keeps an async hook that runs for every promise and socket the process makes,
 * and the first change made through the API left it on for every later read. Nothing may read the
 * scope by then: the transaction itself is committed or rolled back through the request's handle,
 * and work a handler left running uses the pool (as it does once the transaction has ended).
 * (With Node 24's context frames there is no hook, and disable() only clears the current frame.)
 */
export async function runInRequestTransaction<T>(transaction: RequestTransaction, work: () => T | PromiseLike<T>): Promise<T> {
  running++;
  try {
    return await scope.run(transaction, work);
  } finally {
    if (--running === 0) scope.disable();
  }
}

/**
 * Defers `callback` until the calling request's transaction commits (at once outside a request):
 * caches dropped before the commit could be refilled from the old rows by a concurrent request.
 */
export function afterCommit(callback: () => void): void {
  const transaction = scope.getStore();
  if (transaction?.tx) transaction.afterCommit(callback);
  else callback();
}

/** Starts background work outside any request transaction (a worker woken by a request must not use it). */
export function outsideRequestTransaction<T>(work: () => T): T {
  return scope.exit(work);
}
