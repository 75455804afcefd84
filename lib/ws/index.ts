// Responses WebSocket mode, as the root entry offers it (its decoder parts are in lib/codecs.ts). `ws` is only ever
// imported dynamically (Node), so this stays browser-safe.
export { connectResponsesSocket, type ResponsesSocket, type ResponsesSocketConfig } from './socket.js';
export { streamResponseOverSocket, type SocketResponseBody, type ResponseOverSocketOptions } from './response.js';
export { WebSocketClosedError, WebSocketNotOpenError, InvalidClientEventError, LaneError, isLaneError } from './errors.js';
export type { ConnectionState, FrameErrorEvent, SocketEvent, LaneSocket, WebSocketLike, WebSocketConstructorLike } from './types.js';
