export * from './accounts';
export * from './api-keys';
export * from './submissions';
export * from './submission-attempts';
export * from './operations';
export * from './app-events';
export * from './imports';
export * from './worker-state';
