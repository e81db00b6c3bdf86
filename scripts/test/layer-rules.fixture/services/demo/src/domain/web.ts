// Violates domain-is-pure: a web framework imported by domain code.
import express from 'express';

export const router = express.Router;
