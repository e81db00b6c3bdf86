// Violates domain-is-pure although only a type is imported: the rule counts type-only imports too.
import type { Request } from 'express';

export const pathOf = (req: Request): string => req.path;
