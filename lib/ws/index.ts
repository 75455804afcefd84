// Responses WebSocket mode. `ws` is only ever imported dynamically (Node), so this stays browser-safe.
export { connectResponsesSocket, responsesSocketURL, type ResponsesSocket, type ResponsesSocketConfig } from './socket.js';
export { streamResponseOverSocket, type SocketResponseBody, type ResponseOverSocketOptions } from './response.js';
export { WebSocketClosedError, WebSocketNotOpenError, InvalidClientEventError, WebSocketConfigError, LaneError, isLaneError } from './errors.js';
export { checkClientEvent } from './validate.js';
export { decodeFrame } from './frames.js';
export type { ConnectionState, FrameErrorEvent, SocketEvent, LaneSocket, WebSocketLike, NodeWebSocketLike, WebSocketConstructorLike } from './types.js';
