import { createRequire } from 'node:module';

/*
 * Loads `pg` before anything else does, with the global `Response` out of sight for that moment.
 * When it loads, pg asks "is this a Cloudflare Worker?": with no `navigator` global (Node 20; 21 and
 * later have one and never get here) it reads `Response`, and that first read loads Node's bundled
 * fetch (undici, HTTP/2, worker threads): 12 MB of memory for good in a process that has not fetched
 * anything. Later imports of pg get this same module from the cache.
 */
const responseProperty = Object.getOwnPropertyDescriptor(globalThis, 'Response');
if (!('navigator' in globalThis) && responseProperty?.configurable) {
  Object.defineProperty(globalThis, 'Response', { value: undefined, configurable: true, writable: true });
  try {
    createRequire(import.meta.url)('pg');
  } finally {
    Object.defineProperty(globalThis, 'Response', responseProperty);
  }
}
