export * from './auth';
export * from './config';
export * from './errors';
export * from './health';
export * from './http/app';
export * from './lifecycle';
export * from './logger';
export * from './metrics';
