export * from './container-engine';
export * from './external-postgres';
export * from './git-server';
export * from './platform-process';
export * from './port';
export * from './smtp';
export * from './wait';
export * from './webhook';
