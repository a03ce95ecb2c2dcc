// The issuer's controls a transfer meets before its cosignature leaves the process (issue 32):
// the blacklist, seized outputs and the amount limits (what the batch's look-ups read), then
// the screening service, asked last and only for a transfer every other rule allows.

import { DomainError } from '../../domain/domain-error.js';
import {
  type AmountLimits,
  amountSent,
  blacklistRefusal,
  type ControlledTransfer,
  isOperatorMove,
  limitRefusal,
  seizedRefusal,
} from '../../domain/issuer-controls.js';
import type { Refusal } from '../../domain/transfer-refusal.js';
import { recordControlEvent } from '../../store/controls/control-events.js';
import type { ServiceContext } from '../context.js';

export type { ControlCounters, IssuerControls, ScreeningSettings } from './control-settings.js';

/** What the batch's look-ups said about the controls. */
export interface ControlLookups {
  readonly blacklisted: ReadonlySet<string>;
  readonly seized: ReadonlySet<string>;
  readonly sentSince: ReadonlyMap<string, bigint>;
}

const NO_LIMITS: AmountLimits = { perTransfer: null, perAddressPerDay: null };

/** The first control that refuses the transfer: the blacklist, seized outputs, the limits. */
export function controlRefusal(
  ctx: Pick<ServiceContext, 'token' | 'controls'>,
  t: ControlledTransfer,
  looked: ControlLookups,
): Refusal | null {
  const refusal =
    blacklistRefusal(t, looked.blacklisted) ??
    seizedRefusal(t, looked.seized) ??
    limitRefusal(t, ctx.controls?.limits ?? NO_LIMITS, looked.sentSince, ctx.token);
  if (refusal !== null) ctx.controls?.counted?.refused(refusal.code);
  return refusal;
}

/**
 * Asks the screening service about a wallet's transfer (the operator's own moves are not
 * screened): POST {txid, senders, outputs, amount} and expect {decision: 'allow' | 'deny',
 * reason}. A denial throws SCREENING_DENIED with the reason and is recorded in control_events;
 * a timeout or failure throws SCREENING_UNAVAILABLE or passes, as `onTimeout` says.
 */
export async function screenTransfer(
  ctx: Pick<ServiceContext, 'token' | 'controls' | 'db' | 'now' | 'log'>,
  txid: string,
  t: ControlledTransfer,
): Promise<void> {
  const screening = ctx.controls?.screening ?? null;
  if (screening === null || isOperatorMove(t, ctx.token)) return;
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const body = {
    txid,
    senders: [...new Set(t.senders)],
    outputs: t.outputs.map((o) => ({ address: o.owner, amount: o.amount.toString(), op: o.op })),
    amount: amountSent(t).toString(),
  };
  let answer: { decision?: unknown; reason?: unknown };
  try {
    const res = await fetch(screening.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(screening.timeoutMs),
    });
    if (!res.ok) throw new Error(`screening answered ${res.status}`);
    answer = (await res.json()) as typeof answer;
    if (answer.decision !== 'allow' && answer.decision !== 'deny')
      throw new Error('screening answered no decision (allow or deny)');
  } catch (err) {
    ctx.controls?.counted?.screened('timeout', seconds());
    const why = err instanceof Error ? err.message : String(err);
    ctx.log.warn({ txid, err: why, onTimeout: screening.onTimeout }, 'screening did not answer');
    await recordControlEvent(ctx.db, {
      action: 'screening-timeout',
      subject: txid,
      reason: why,
      actor: 'screening',
      at: ctx.now(),
      detail: { ...body, outcome: screening.onTimeout },
    });
    if (screening.onTimeout === 'allow') return;
    ctx.controls?.counted?.refused('SCREENING_UNAVAILABLE');
    throw new DomainError('SCREENING_UNAVAILABLE', `the screening service did not answer: ${why}`);
  }
  ctx.controls?.counted?.screened(answer.decision === 'allow' ? 'allow' : 'deny', seconds());
  if (answer.decision === 'allow') return;
  const reason =
    typeof answer.reason === 'string' && answer.reason !== ''
      ? answer.reason.slice(0, 500)
      : 'no reason given';
  await recordControlEvent(ctx.db, {
    action: 'screening-deny',
    subject: txid,
    reason,
    actor: 'screening',
    at: ctx.now(),
    detail: body,
  });
  ctx.controls?.counted?.refused('SCREENING_DENIED');
  throw new DomainError('SCREENING_DENIED', `screening denied the transfer: ${reason}`);
}
