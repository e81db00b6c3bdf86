export * from './bench';
export * from './gateway';
export * from './infra';
export * from './logs';
export * from './poll';
export * from './store-scans';
export * from './tls';
export * from './tokens';
