export * from './auth';
export * from './common';
export * from './platform';
export * from './projects';
export * from './users';
