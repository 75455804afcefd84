// What openai-rx/gateway exports (pinned by ../exports.spec.ts; see ./index.ts).
import type { EntryExports } from './index';

export const gateway: EntryExports = {
  values: [
    'GatewayHttpError',
    'chatRequestToResponses',
    'createGateway',
    'ownerOf',
  ],
  types: [
    'AccessLogEntry',
    'AccessLogOption',
    'ChatRequestMapping',
    'Gateway',
    'GatewayCaller',
    'GatewayErrorStatus',
    'GatewayLimits',
    'GatewayMetricsSnapshot',
    'GatewayOptions',
    'GatewayTimeouts',
    'GatewayUpstream',
    'OpenAIErrorBody',
    'ResponsesCreateRequest',
  ],
};
