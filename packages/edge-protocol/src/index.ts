export * from './health';
export * from './process';
export * from './proxy-log';
export * from './routes';
