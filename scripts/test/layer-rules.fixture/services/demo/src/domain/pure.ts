// Allowed: the errors module imports nothing else.
import { AppError } from '@cc/kit/errors';

export const check = (n: number): number => {
  if (n < 0) throw new AppError('DEMO.NEGATIVE', 'must not be negative');
  return n;
};
