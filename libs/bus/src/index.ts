export * from './consumer';
export * from './dedupe';
export * from './eager-publisher';
export * from './envelope';
export * from './kafka';
export * from './outbox';
export * from './producer';
export * from './schemas';
