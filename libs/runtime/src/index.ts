export * from './main';
export * from './runtime';
