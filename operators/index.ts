export { ofType } from './ofType.js';
export { resumeFrom, resumeFromCursor, exponentialBackoff, isRetryableError, type ResumeCursor, type ResumeOptions, type Reconnect, type ResumeDelay, type BackoffOptions } from './resumeFrom.js';
export { toChatChunks, type ToChatChunksOptions } from './toChatChunks.js';
