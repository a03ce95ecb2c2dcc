// GET /v2/sync/stream: the change feed live, as server-sent events (docs/clients.md, "A live
// change feed"). Each event is a change-feed record (the SyncRecord of /v1/sync) whose SSE id is
// its score; Last-Event-ID (or ?from=) resumes after a score, with every record after it once.
// One FeedHub per process reads the feed for every stream (src/usecases/feed/feed-hub.ts); one
// timer sends every stream's heartbeat. Streams are bounded per API key and per client address
// in this process (429 STREAM_LIMIT), and a stream whose reader falls too far behind is closed
// (it resumes with Last-Event-ID).
import type { ServerResponse } from 'node:http';
import { Type } from 'typebox';
import { MAX_SCORE } from '../../domain/index-bounds.js';
import { firstEvent } from '../../process/first-event.js';
import { liveApiKeyIds } from '../../store/access/api-keys-store.js';
import type { SyncRecord } from '../../store/feed/feed-queries.js';
import { FeedHub, type FeedSubscriber } from '../../usecases/feed/feed-hub.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { submitterIdOf } from '../plugins/auth.js';
import { clientKeyOfAddress } from '../plugins/rate-limit.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import { checkAddresses } from './address-list.js';
import type { RouteDeps } from './route-deps.js';
import { syncRecordJson } from './wire.js';

export interface StreamRouteDeps extends RouteDeps {
  readonly pollMs: number;
  readonly heartbeatMs: number;
  readonly maxPerKey: number;
  readonly maxPerClient: number;
}

/** Bytes a live stream may have waiting unsent before it is closed (the reader resumes later). */
const MAX_BUFFERED = 4 * 1024 * 1024;
/**
 * Bytes a catching-up stream writes before it waits for its socket to drain: it is sent its
 * history at the pace it reads it, one record past this at most, and is never cut for being slow.
 */
const CATCH_UP_HIGH_WATER = 1024 * 1024;
const SCORE = /^[0-9]{1,19}$/;

/**
 * The event text of a record, made once however many streams send it: the hub hands every
 * stream the same record objects (a page read for them all, a live read fanned out).
 */
const eventTexts = new WeakMap<SyncRecord, string>();
function eventText(r: SyncRecord): string {
  let text = eventTexts.get(r);
  if (text === undefined) {
    text = `id: ${r.score}\ndata: ${JSON.stringify(syncRecordJson(r))}\n\n`;
    eventTexts.set(r, text);
  }
  return text;
}

interface Stream {
  readonly res: ServerResponse;
  readonly sub: FeedSubscriber;
  readonly keys: readonly string[];
  /** The API key that opened it (none: anonymous or the shared public token). */
  readonly apiKeyId: string | null;
}

export function streamRoutes(deps: StreamRouteDeps) {
  return (app: AppInstance) => {
    const hub = new FeedHub({
      db: deps.ctx.db,
      pollMs: deps.pollMs,
      onError: (err) => deps.ctx.log.warn({ err }, 'the live feed could not read the feed; trying again'),
    });
    const open = new Set<Stream>();
    const counts = new Map<string, number>();
    let heartbeat: NodeJS.Timeout | null = null;

    const count = (key: string, by: number) => {
      const n = (counts.get(key) ?? 0) + by;
      if (n <= 0) counts.delete(key);
      else counts.set(key, n);
    };
    // A key revoked (on any instance) loses its open streams at the next heartbeat: its requests
    // are refused from then on, and a stream is a request that goes on.
    let checking = false;
    const closeRevoked = async () => {
      const keyed = [...open].filter((s) => s.apiKeyId !== null);
      if (checking || keyed.length === 0) return;
      checking = true;
      try {
        const live = await liveApiKeyIds(deps.ctx.db, [...new Set(keyed.map((s) => s.apiKeyId!))]);
        for (const s of keyed) if (!live.has(s.apiKeyId!)) s.res.end();
      } catch (err) {
        deps.ctx.log.warn({ err }, "the live feed could not check its streams' keys; trying again");
      } finally {
        checking = false;
      }
    };
    const beat = () => {
      for (const s of open) s.res.write(': heartbeat\n\n');
      void closeRevoked();
    };
    const closeStream = (s: Stream) => {
      if (!open.delete(s)) return;
      for (const k of s.keys) count(k, -1);
      if (open.size === 0 && heartbeat !== null) {
        clearInterval(heartbeat);
        heartbeat = null;
      }
    };

    app.addHook('preClose', async () => {
      hub.close();
      for (const s of [...open]) {
        s.res.end();
        closeStream(s);
      }
    });

    app.get(
      '/v2/sync/stream',
      {
        config: { scope: 'read' },
        schema: {
          summary: 'The change feed live (server-sent events)',
          description:
            'Each event is a SyncRecord (the shape of /v1/sync) with the SSE id its score. Resume with Last-Event-ID ' +
            '(EventSource sends it) or ?from=<score>: every record after that score comes once, in score order. ' +
            'Without either, only records from now on. A comment line `: heartbeat` comes every 15 s.',
          querystring: Type.Object({
            ...authTokenQuery,
            addresses: Type.Optional(
              Type.String({
                description: 'Comma-separated addresses to follow (absent: the whole token)',
                examples: ['1BoatSLRHtKNngkdXEeobR76b53LETtpyT,1dice8EMZmqKvrGE4Qc9bUFf9PX3xaYDp'],
              }),
            ),
            from: Type.Optional(
              Type.String({
                pattern: SCORE.source,
                description: 'Score read up to, excluded (Last-Event-ID, when sent, wins); 0: from the start',
                examples: ['0'],
              }),
            ),
          }),
          response: {
            200: {
              description: 'An event stream: `id: <score>` and `data: <SyncRecord as JSON>` per record',
              content: {
                'text/event-stream': {
                  schema: Type.String({
                    examples: [
                      'id: 42\ndata: {"txid":"a3f1…","score":42,"height":0,"idx":0,"blkHash":"","blkTime":0,"outs":[0,1],"senders":["1Alice…"],"receivers":["1Bob…"],"rawtx":"AQAAAA…"}\n\n',
                    ],
                  }),
                },
              },
            },
            ...problemResponses(400, 429),
          },
        },
      },
      async (request, reply) => {
        const { addresses: given, from } = request.query;
        let addresses: ReadonlySet<string> | null = null;
        if (given !== undefined) {
          const list = given.split(',').filter((a) => a !== '');
          if (list.length === 0 || list.length > deps.maxAddresses)
            throw new AppError('INVALID_PARAMETER', `addresses: 1 to ${deps.maxAddresses} addresses`);
          addresses = new Set(checkAddresses(list));
        }
        const lastEventId = request.headers['last-event-id'];
        const resumeAt = typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : from;
        if (resumeAt !== undefined && (!SCORE.test(resumeAt) || BigInt(resumeAt) > MAX_SCORE))
          throw new AppError(
            'INVALID_PARAMETER',
            `Last-Event-ID and from must be a score, 0 to ${MAX_SCORE}`,
          );
        const client = clientKeyOfAddress(request.ip);
        // A shared public principal (the sandbox's public token) is everyone's: counted per
        // client address only.
        const submitter = submitterIdOf(request.principal);
        const keys = [`ip:${client}`, ...(submitter === null ? [] : [`key:${submitter}`])];
        if ((counts.get(keys[0]!) ?? 0) >= deps.maxPerClient)
          throw new AppError('STREAM_LIMIT', `at most ${deps.maxPerClient} streams per client address`);
        if (keys[1] !== undefined && (counts.get(keys[1]) ?? 0) >= deps.maxPerKey)
          throw new AppError('STREAM_LIMIT', `at most ${deps.maxPerKey} streams per API key`);
        // Counted before any wait: requests arriving together must not all pass the check.
        for (const k of keys) count(k, 1);
        let cursor: bigint;
        try {
          cursor = resumeAt === undefined ? await hub.tip() : BigInt(resumeAt);
        } catch (err) {
          for (const k of keys) count(k, -1);
          throw err;
        }

        reply.hijack();
        const res = reply.raw;
        res.writeHead(200, {
          ...(reply.getHeaders() as Record<string, string>),
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          'x-accel-buffering': 'no',
        });
        res.write(`retry: 2000\n: from ${cursor}\n\n`);
        res.socket?.setNoDelay(true);
        res.socket?.setTimeout(0);
        const stream: Stream = {
          res,
          keys,
          apiKeyId: submitter,
          sub: {
            cursor,
            addresses,
            deliver: (records: readonly SyncRecord[]) => {
              if (res.writableEnded) return;
              res.write(records.map(eventText).join(''));
              if (res.writableLength > MAX_BUFFERED) res.destroy();
            },
            catchUp: async (records: readonly SyncRecord[]) => {
              for (const r of records) {
                if (res.writableEnded || res.destroyed) return;
                res.write(eventText(r));
                if (res.writableLength > CATCH_UP_HIGH_WATER) await firstEvent(res, ['drain', 'close']);
              }
            },
          },
        };
        open.add(stream);
        heartbeat ??= setInterval(beat, deps.heartbeatMs);
        heartbeat.unref?.();
        let leave: () => void = () => undefined;
        let gone = false;
        res.on('close', () => {
          gone = true;
          leave();
          closeStream(stream);
        });
        // A client that left while the tip was read closed before the listener was there.
        if (request.raw.destroyed) {
          gone = true;
          closeStream(stream);
          return;
        }
        try {
          leave = await hub.subscribe(stream.sub, () => !gone);
          if (gone) leave();
        } catch (err) {
          request.log.warn({ err }, 'a live feed stream could not catch up; closing it');
          res.destroy();
        }
      },
    );
  };
}
