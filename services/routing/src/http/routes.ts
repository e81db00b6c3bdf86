import type { Principal } from '@cc/kit';
import type { Express } from 'express';
import type { AdminService } from '../app/admin.service';
import type { DesktopService } from '../app/desktop.service';
import type { InvokeService } from '../app/invoke.service';
import { mountAdmin } from './admin.handler';
import { mountAgentDesktop } from './agent-desktop.handler';
import { mountInvoke } from './invoke.handler';

/** What the HTTP layer calls. */
export interface HttpDeps {
  verify: (token: string) => Promise<Principal>;
  invoke: InvokeService;
  admin: AdminService;
  desktop: DesktopService;
}

/** Mounts the routing service's HTTP API: Invoke, the routing admin API and the agent-desktop API. */
export function mountRoutes(app: Express, deps: HttpDeps): void {
  mountInvoke(app, deps.verify, deps.invoke);
  mountAdmin(app, deps.verify, deps.admin);
  mountAgentDesktop(app, deps.verify, deps.desktop);
}
