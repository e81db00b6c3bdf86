import { adminDocument } from './admin';
import { agentDesktopDocument } from './agent-desktop';
import { agentSummariesDocument } from './agent-summaries';
import { authDocument } from './auth';
import type { OpenApiObject } from './build';
import { conversationAnalyzerDocument } from './conversation-analyzer';
import { interactionsDocument } from './interactions';
import { statisticsDocument } from './statistics';
import { v0StatisticsDocument } from './v0-statistics';

export type { OpenApiObject } from './build';

/** Every OpenAPI 3.1 document of the suite, keyed by API name. */
export const openApiDocuments = {
  interactions: interactionsDocument,
  statistics: statisticsDocument,
  'agent-summaries': agentSummariesDocument,
  'conversation-analyzer': conversationAnalyzerDocument,
  'v0-statistics': v0StatisticsDocument,
  auth: authDocument,
  admin: adminDocument,
  'agent-desktop': agentDesktopDocument,
} as const satisfies Record<string, OpenApiObject>;

/** The name of an OpenAPI document. */
export type OpenApiName = keyof typeof openApiDocuments;
