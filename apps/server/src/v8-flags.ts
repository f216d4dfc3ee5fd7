import v8 from 'node:v8';

/*
 * Imported first by main.ts, before the platform's code runs.
 *
 * --no-allocation-site-pretenuring: V8 allocates an allocation site's objects straight in the old
 * generation once many of them survived a young collection. A first burst of API calls on a cold
 * process (200 connections at once, JIT still compiling) made it so for the request path's sites,
 * and the decision stuck: those dead old objects kept their young children alive, every young
 * collection copied half of what was allocated, and GET /api/user/me spent 36 us of CPU per call
 * instead of 22, in about half of the starts (3 of 6; 0 of 8 with the flag). A gentle first load
 * avoided it too, but a platform does not choose its first load.
 */
v8.setFlagsFromString('--no-allocation-site-pretenuring');
