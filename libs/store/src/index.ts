export * from './connection';
export * from './duplicate-key';
export * from './expiry';
export * from './tenancy';
