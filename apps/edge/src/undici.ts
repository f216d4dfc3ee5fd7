/**
 * The two parts of undici the edge uses, loaded on their own. `import 'undici'` loads all of it
 * (fetch, WebSocket, caches, mocks: about 110 modules, 20 MB of memory and 100 ms at start) for a
 * proxy that needs only its HTTP/1.1 client and connector. The paths are undici's own files (it has no `exports` map);
 * the edge's tests and the deploy tests exercise every one of them, so a release that moves them
 * fails there, not in production. The build bundles them into the edge (build.mjs).
 */
import type * as Undici from 'undici';
import connectModule from 'undici/lib/core/connect.js';
import clientModule from 'undici/lib/dispatcher/client.js';

export type { Dispatcher } from 'undici';
export type Client = Undici.Client;
export type ClientOptions = Undici.Client.Options;
export type Connector = Undici.buildConnector.connector;
export const Client = clientModule as typeof Undici.Client;
export const buildConnector = connectModule as typeof Undici.buildConnector;
