// Where a callback may go (contract.md "Callbacks", reference.md "Callback URLs (SSRF)"):
// http(s) only, no credentials, and a host whose every address is public unicast. IP
// literals in any form are normalised by WHATWG URL (`2130706433`, `0x7f.1` -> 127.0.0.1),
// IPv4-mapped IPv6 is unwrapped, and only `range() === 'unicast'` passes. `localhost` names
// never pass. The operator allow-list (config `callbackAllow`: hosts, IPs or CIDRs) lets the
// sandbox and tests call loopback. The same rules run at submission (checkCallbackUrl) and at
// connect time (lookup, handed to undici, so a name re-bound to a private address is refused;
// literals, for which no lookup happens, through checkLiteralHost).
import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Ip = ipaddr.IPv4 | ipaddr.IPv6;

/** Resolves a host name to every address (A and AAAA). */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface CallbackAllowList {
  /** Host names allowed whatever they resolve to (lower case, no trailing dot). */
  readonly hosts: ReadonlySet<string>;
  /** Address ranges allowed despite not being public. */
  readonly ranges: readonly (readonly [Ip, number])[];
}

export type Verdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const OK: Verdict = { ok: true };

/** IPv4-compatible IPv6 (::a.b.c.d, deprecated): ipaddr.js calls it unicast; refused here. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/** The error a connect-time lookup fails with when the host resolves where it must not. */
export class CallbackRefusedError extends Error {
  override readonly name = 'CallbackRefusedError';
  readonly code = 'ECALLBACKREFUSED';
}

function bareHost(hostname: string): string {
  const unbracketed = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return unbracketed.toLowerCase().replace(/\.$/, '');
}

/** Parses the operator's allow-list; throws on an entry that is neither a host nor an IP/CIDR. */
export function parseCallbackAllow(entries: readonly string[]): CallbackAllowList {
  const hosts = new Set<string>();
  const ranges: (readonly [Ip, number])[] = [];
  for (const raw of entries) {
    const entry = bareHost(raw.trim());
    if (entry.includes('/')) {
      if (!ipaddr.isValidCIDR(entry)) throw new Error(`callbackAllow: not a CIDR: ${raw}`);
      const [net, bits] = ipaddr.parseCIDR(entry);
      ranges.push(unwrapRange(net, bits));
    } else if (ipaddr.isValid(entry)) {
      const ip = ipaddr.process(entry);
      ranges.push([ip, ip.kind() === 'ipv4' ? 32 : 128]);
    } else if (/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(entry)) {
      hosts.add(entry);
    } else {
      throw new Error(`callbackAllow: not a host, IP or CIDR: ${raw}`);
    }
  }
  return { hosts, ranges };
}

/** `::ffff:10.0.0.0/104` is allowed as `10.0.0.0/8` (addresses are unwrapped before matching). */
function unwrapRange(net: Ip, bits: number): readonly [Ip, number] {
  if (net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(net as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [net, bits];
}

/** Whether one address may be called: allow-listed, or public unicast. */
export function addressVerdict(address: string, allow: CallbackAllowList): Verdict {
  let ip: Ip;
  try {
    ip = ipaddr.process(bareHost(address));
  } catch {
    return { ok: false, reason: `${address} is not an IP address` };
  }
  if (allow.ranges.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits))) return OK;
  const range = ip.range();
  if (range !== 'unicast') return { ok: false, reason: `${ip.toString()} is a ${range} address` };
  if (ip.kind() === 'ipv6' && ip.match(IPV4_COMPATIBLE)) {
    return { ok: false, reason: `${ip.toString()} is an IPv4-compatible address` };
  }
  return OK;
}

function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/**
 * For a URL's host: null when it is a name, else the verdict on the literal. A literal is what
 * net.isIP accepts, exactly the hosts for which net.connect skips the lookup.
 */
export function checkLiteralHost(hostname: string, allow: CallbackAllowList): Verdict | null {
  const host = bareHost(hostname);
  return isIP(host) !== 0 ? addressVerdict(host, allow) : null;
}

/** Every resolved address must pass (a mixed answer is refused as a whole). */
export function addressesVerdict(
  hostname: string,
  addresses: readonly LookupAddress[],
  allow: CallbackAllowList,
): Verdict {
  if (addresses.length === 0) return { ok: false, reason: `${hostname} resolves to no address` };
  for (const { address } of addresses) {
    const verdict = addressVerdict(address, allow);
    if (!verdict.ok) return { ok: false, reason: `${hostname} resolves to ${verdict.reason}` };
  }
  return OK;
}

/** The name rules before any resolution: allow-listed names pass, localhost names never do. */
function nameVerdict(host: string, allow: CallbackAllowList): Verdict | 'resolve' {
  if (allow.hosts.has(host)) return OK;
  if (isLocalhostName(host)) return { ok: false, reason: `${host} is a localhost name` };
  return 'resolve';
}

export type UrlVerdict =
  | { readonly ok: true; readonly url: URL }
  | { readonly ok: false; readonly reason: string };

/** The submission-time check: syntax, scheme, credentials, then the host's addresses. */
export async function checkCallbackUrl(
  text: string,
  allow: CallbackAllowList,
  resolve: Resolver = systemResolver,
): Promise<UrlVerdict> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: `callback_url is not a URL: ${text}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: 'callback_url must be http or https' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'callback_url must not carry credentials' };
  }
  const verdict = await hostVerdict(url.hostname, allow, resolve);
  if (verdict.ok) return { ok: true, url };
  // A receiver on the developer's own machine is the usual first callback URL: say what allows it.
  const hint = / resolves? to no address| does not resolve /.test(verdict.reason) ? '' : ALLOW_HINT;
  return { ok: false, reason: `callback_url refused: ${verdict.reason}${hint}` };
}

/** How an operator lets a private or loopback receiver through (development, private networks). */
export const ALLOW_HINT =
  '; to allow it (a receiver on this machine or a private network), start the service with ' +
  '--callback-allow <host, IP or CIDR> (config callbackAllow)';

async function hostVerdict(hostname: string, allow: CallbackAllowList, resolve: Resolver): Promise<Verdict> {
  const literal = checkLiteralHost(hostname, allow);
  if (literal !== null) return literal;
  const host = bareHost(hostname);
  const byName = nameVerdict(host, allow);
  if (byName !== 'resolve') return byName;
  let addresses: readonly LookupAddress[];
  try {
    addresses = await resolve(host);
  } catch (err) {
    return {
      ok: false,
      reason: `${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    };
  }
  return addressesVerdict(host, addresses, allow);
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net/tls.connect (undici's `connect.lookup`): resolves with `resolve` and
 * fails with CallbackRefusedError unless the name passes and every address passes.
 */
export function guardedLookup(allow: CallbackAllowList, resolve: Resolver = systemResolver) {
  return (
    hostname: string,
    options: { family?: number | string; all?: boolean },
    callback: LookupCallback,
  ) => {
    const host = bareHost(hostname);
    const byName = nameVerdict(host, allow);
    const refuse = (reason: string) =>
      callback(new CallbackRefusedError(`refused at connect: ${reason}`), '');
    if (byName !== 'resolve' && !byName.ok) return refuse(byName.reason);
    resolve(host).then(
      (all) => {
        if (byName === 'resolve') {
          const verdict = addressesVerdict(host, all, allow);
          if (!verdict.ok) return refuse(verdict.reason);
        }
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const wanted = family === 4 || family === 6 ? all.filter((a) => a.family === family) : [...all];
        const first = wanted[0];
        if (first === undefined) return refuse(`${host} has no IPv${family} address`);
        if (options.all === true) callback(null, wanted);
        else callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}
