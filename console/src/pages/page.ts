import type { ConsoleApi } from '../api';

/** A page of the console: renders into `root` and returns what stops its timers and streams. */
export interface Page {
  title: string;
  render(root: HTMLElement, api: ConsoleApi, args: string[]): () => void;
}
