/**
 * The three parts of undici the edge uses, loaded on their own. `import 'undici'` loads all of it
 * (fetch, WebSocket, caches, mocks: about 110 modules, 20 MB of memory and 100 ms at start) for a
 * proxy that needs only connection pools. The paths are undici's own files (it has no `exports` map);
 * the edge's tests and the deploy tests exercise every one of them, so a release that moves them
 * fails there, not in production.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

export type { Dispatcher } from 'undici';
export type Pool = Undici.Pool;
export type ClientOptions = Undici.Client.Options;
export type Connector = Undici.buildConnector.connector;
export const Pool: typeof Undici.Pool = require('undici/lib/dispatcher/pool.js');
export const Client: typeof Undici.Client = require('undici/lib/dispatcher/client.js');
export const buildConnector: typeof Undici.buildConnector = require('undici/lib/core/connect.js');
