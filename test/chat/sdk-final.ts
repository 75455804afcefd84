import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import type { ChatCompletion } from 'openai/resources/chat/completions';

/** What the official SDK's chat stream helper makes of these chunks (fed as its readable-stream lines). */
export async function sdkFinal(chunks: readonly unknown[]): Promise<ChatCompletion> {
  const body = new TextEncoder().encode(chunks.map((c) => `${JSON.stringify(c)}\n`).join(''));
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(body);
      controller.close();
    },
  });
  return ChatCompletionStream.fromReadableStream(stream).finalChatCompletion();
}
