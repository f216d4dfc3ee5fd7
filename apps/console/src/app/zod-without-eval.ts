// Imported first by main.tsx, before any module that loads zod. Zod compiles object parsers with
// `new Function` when it can, and probes for that with a call the console's Content-Security-Policy
// refuses (no 'unsafe-eval'): every probe is reported as a CSP violation. Jitless zod never probes.
// Zod keeps its global config on this globalThis key so that every copy of zod shares it.
const holder = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
holder.__zod_globalConfig ??= {};
holder.__zod_globalConfig.jitless = true;
