// Allowed: the http layer may use express.
import express from 'express';
import { check } from '../domain/pure';

export const app = express().get('/', (_req, res) => {
  res.json({ n: check(1) });
});
