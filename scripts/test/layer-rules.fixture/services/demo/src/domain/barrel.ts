// Violates domain-reaches-no-framework: the @cc/kit barrel loads express and pino (through its http app and logger).
import { AppError } from '@cc/kit';

export const refuse = (): never => {
  throw new AppError('DEMO.REFUSED', 'refused');
};
