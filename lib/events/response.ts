import * as t from 'io-ts';
import { nullable, optional, struct } from './codec.js';
import { ResponseOutputItem } from './items.js';

export const ResponseUsage = struct(
  {
    input_tokens: t.number,
    output_tokens: t.number,
    total_tokens: t.number,
    input_tokens_details: optional(nullable(struct({ cached_tokens: optional(t.number) }, 'input_tokens_details'))),
    output_tokens_details: optional(nullable(struct({ reasoning_tokens: optional(t.number) }, 'output_tokens_details'))),
  },
  'Usage',
);
/**
 * Token counts of a response.
 * @interface
 */
export type ResponseUsage = t.TypeOf<typeof ResponseUsage>;

export const ResponseError = struct({ code: optional(nullable(t.string)), message: t.string }, 'ResponseError');
/**
 * Why a response failed (`response.error`).
 * @interface
 */
export type ResponseError = t.TypeOf<typeof ResponseError>;

/** The `Response` object embedded in lifecycle events. Echoed parameters and future keys are kept. */
export const Response = struct(
  {
    id: t.string,
    object: optional(t.string),
    created_at: optional(t.number),
    status: optional(t.string),
    model: optional(t.string),
    output: optional(t.array(ResponseOutputItem)),
    usage: optional(nullable(ResponseUsage)),
    error: optional(nullable(ResponseError)),
    incomplete_details: optional(nullable(struct({ reason: optional(nullable(t.string)) }, 'incomplete_details'))),
    previous_response_id: optional(nullable(t.string)),
  },
  'Response',
);
/**
 * The `Response` object of the lifecycle events (`response.created` … `response.completed`). Echoed parameters and future keys are kept.
 * @interface
 */
export type Response = t.TypeOf<typeof Response>;
