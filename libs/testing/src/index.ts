export * from './gateway';
export * from './infra';
export * from './logs';
export * from './poll';
export * from './tls';
export * from './tokens';
