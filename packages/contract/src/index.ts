export * from './api-keys';
export * from './audit';
export * from './auth';
export * from './common';
export * from './platform';
export * from './projects';
export * from './settings';
export * from './users';
