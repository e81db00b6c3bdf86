// Violates domain-is-pure: the store's driver imported by domain code.
import mongoose from 'mongoose';

export const isId = (v: string): boolean => mongoose.isValidObjectId(v);
