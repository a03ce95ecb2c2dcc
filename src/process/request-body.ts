// The body of a request to one of the service's bare node:http servers (the devnet's ARC API, the
// writer), read whole up to a limit: null once it grows past the limit, so each server answers
// that in its own words.
import type { IncomingMessage } from 'node:http';

export async function readBodyWithin(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
