// The service allocators (kube's ipallocator and portallocator behind the Service REST's BeginCreate and
// BeginUpdate): cluster IPs from 10.96.0.0/12, whose first address belongs to the `kubernetes` Service, and node
// ports from 30000-32767. A value is free when no other stored Service holds it and no write in flight has
// claimed it; explicitly requested values that are taken are refused with kube's 422.
//
// Claims live in storage (ValueClaims), so every instance sharing it respects them: a write claims its values,
// then asks again who holds them (a consistent read); a value held by no other Service is then safely its own,
// since any Service that took it earlier is stored by now and any later taker finds the claim. Who holds a value
// comes from the store's index of the values Services hold (serviceHeldValues), so a write costs O(1) in the
// number of Services.

import { randomInt } from 'node:crypto';
import { goStringsValue, invalid, type FieldError } from '../../../apis/errors.ts';
import type { Holders, KubeObject, RequestContext, ValueClaims } from '../../types.ts';
import { NODE_PORT_RANGE_KEY, SERVICE_IP_RANGE_KEY } from '../../../storage/keys.ts';
import { arrAt, ensureObj, objAt, objsAt, strAt, type Obj } from '../object.ts';
import { cloneJson } from '../../../apis/json-clone.ts';

export const SERVICE_CIDR = '10.96.0.0/12';
const CIDR_BASE = (10 << 24) | (96 << 16);
const CIDR_SIZE = 1 << 20;
/** kube's static band: the first min(max(16, size/16), 256) addresses are left to explicit requests. */
const STATIC_BAND = 256;
export const NODE_PORT_RANGE = { base: 30000, size: 2768 };
const NODE_PORT_RANGE_TEXT = '30000-32767';

/** The first address of the service CIDR: the `kubernetes` Service's, never handed out at random. */
export const KUBERNETES_SERVICE_IP = '10.96.0.1';

export function ipToInt(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

function intToIP(n: number): string {
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export function inServiceCIDR(ip: string): boolean {
  const n = ipToInt(ip);
  return n !== undefined && n > CIDR_BASE && n < CIDR_BASE + CIDR_SIZE - 1;
}

/**
 * A free cluster IP: random in the dynamic band (above the static band), then the first free address anywhere.
 * `random(n)` picks in [0, n) (tests pass their own).
 */
export function allocateClusterIP(used: { has(ip: string): boolean } = new Set<string>(), random: (n: number) => number = randomInt): string {
  const free = (ip: string) => ip !== KUBERNETES_SERVICE_IP && !used.has(ip);
  const dynamicSize = CIDR_SIZE - STATIC_BAND - 3;
  for (let i = 0; i < 1000; i++) {
    const ip = intToIP(CIDR_BASE + STATIC_BAND + 1 + random(dynamicSize));
    if (free(ip)) return ip;
  }
  for (let n = CIDR_BASE + 1; n < CIDR_BASE + CIDR_SIZE - 1; n++) if (free(intToIP(n))) return intToIP(n);
  throw new Error(`range is full: ${SERVICE_CIDR}`);
}

export function allocateNodePort(used: { has(port: number): boolean } = new Set<number>(), random: (n: number) => number = randomInt): number {
  for (let i = 0; i < 1000; i++) {
    const port = NODE_PORT_RANGE.base + random(NODE_PORT_RANGE.size);
    if (!used.has(port)) return port;
  }
  for (let p = NODE_PORT_RANGE.base; p < NODE_PORT_RANGE.base + NODE_PORT_RANGE.size; p++) if (!used.has(p)) return p;
  throw new Error(`range is full: ${NODE_PORT_RANGE_TEXT}`);
}

// ---- what a Service holds ----

function svcType(svc: KubeObject): string {
  return strAt(svc, 'spec', 'type') || 'ClusterIP';
}

export function needsClusterIP(svc: KubeObject): boolean {
  return svcType(svc) !== 'ExternalName';
}

export function needsNodePorts(svc: KubeObject): boolean {
  const t = svcType(svc);
  return t === 'NodePort' || (t === 'LoadBalancer' && objAt(svc, 'spec')?.allocateLoadBalancerNodePorts !== false);
}

function needsHealthCheckPort(svc: KubeObject): boolean {
  return svcType(svc) === 'LoadBalancer' && strAt(svc, 'spec', 'externalTrafficPolicy') === 'Local';
}

function clusterIPsOf(svc: KubeObject): string[] {
  const ips = arrAt(svc, 'spec', 'clusterIPs').filter((ip): ip is string => typeof ip === 'string' && ip !== '');
  const ip = strAt(svc, 'spec', 'clusterIP');
  return ips.length > 0 ? ips : ip !== '' ? [ip] : [];
}

function nodePortsOf(svc: KubeObject): number[] {
  const ports = objsAt(svc, 'spec', 'ports').map((p) => p.nodePort);
  const hc = objAt(svc, 'spec')?.healthCheckNodePort;
  return [...ports, hc].filter((p): p is number => typeof p === 'number' && p > 0);
}

// ---- claims ----

/** One value a write takes: a cluster IP or a node port, and the refusal if someone else holds it. */
interface Pick {
  readonly key: string;
  readonly value: string | number;
  /** Asked for by the client (refused when taken) rather than picked at random (picked again). */
  readonly requested: boolean;
  readonly refusal: FieldError;
}

type Hold = (pick: Pick) => void;

/** Values found taken by claims of other writes, skipped by the next attempt's random picks. */
interface Blocked {
  readonly ips: Set<string>;
  readonly ports: Set<number>;
}


class AllocationRefused extends Error {
  readonly fieldError: FieldError;
  constructor(fieldError: FieldError) {
    super(fieldError.detail);
    this.fieldError = fieldError;
  }
}

const ipClaimKey = (ip: string) => `${SERVICE_IP_RANGE_KEY}/${ip}`;
const portClaimKey = (port: number) => `${NODE_PORT_RANGE_KEY}/${port}`;
const ATTEMPTS = 8;

/** The values a stored Service holds (Strategy.heldValues): its cluster IPs and node ports. */
export function serviceHeldValues(svc: KubeObject): (string | number)[] {
  return [...clusterIPsOf(svc), ...nodePortsOf(svc)];
}

/**
 * kube's BeginCreate/BeginUpdate for Services: picks the cluster IP and node ports a write needs from the values
 * no other Service holds (`holders`: who holds a value among the stored Services) or claims, or refuses explicitly requested ones that are
 * taken or out of range. The strategy's beginWrite first defaults the object and settles its IP fields
 * (services.ts beginServiceFields); called alone, an absent type means ClusterIP. Returns the release of the
 * claims, which the store calls when the write is over.
 */
export async function beginServiceWrite(obj: KubeObject, old: KubeObject | undefined, ctx: RequestContext, holders: () => Promise<Holders>, claims?: ValueClaims): Promise<(() => void) | undefined> {
  const hadIP = old !== undefined && needsClusterIP(old) && clusterIPsOf(old).length > 0;
  const wantsIP = needsClusterIP(obj) && !hadIP;
  const wantsPorts = needsNodePorts(obj) || needsHealthCheckPort(obj);
  if (!wantsIP && !wantsPorts) return undefined;

  const holder = `${obj.metadata.namespace ?? ctx.namespace}/${obj.metadata.name ?? ''}`;
  /** Held by a stored Service other than the one written. */
  const heldByOthers = (lookup: Holders) => (value: string | number) => lookup(value).some((h) => h !== holder);
  const originalSpec = cloneJson(obj.spec);
  const blocked: Blocked = { ips: new Set(), ports: new Set() };
  const refuse = (fieldError: FieldError) => invalid({ group: '', kind: 'Service' }, obj.metadata.name ?? '', [fieldError]);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (attempt > 0) obj.spec = cloneJson(originalSpec);
    const taken = heldByOthers(await holders());
    const picks: Pick[] = [];
    try {
      if (wantsIP) allocateIPs(obj, taken, blocked, (p) => picks.push(p));
      if (wantsPorts) allocatePorts(obj, old, taken, blocked, (p) => picks.push(p));
    } catch (e) {
      if (e instanceof AllocationRefused) throw refuse(e.fieldError);
      throw e;
    }
    // A dry run checks and picks like a real write, but claims nothing.
    if (ctx.dryRun || picks.length === 0 || claims === undefined) return undefined;
    const claimed: string[] = [];
    const releaseAll = () => claimed.splice(0).forEach((key) => claims.release(key));
    let lost: Pick | undefined;
    try {
      for (const p of picks) {
        if (!(await claims.claim(p.key, holder))) {
          lost = p;
          break;
        }
        claimed.push(p.key);
      }
      if (lost === undefined) {
        // Claimed: a Service stored before the claims shows in this read; none can take them after.
        const held = heldByOthers(await holders());
        lost = picks.find((p) => held(p.value));
      }
    } catch (e) {
      releaseAll();
      throw e;
    }
    if (lost === undefined) return releaseAll;
    releaseAll();
    if (lost.requested) throw refuse(lost.refusal);
    if (typeof lost.value === 'number') blocked.ports.add(lost.value);
    else blocked.ips.add(lost.value);
  }
  throw new Error('could not allocate a cluster IP or node port: every pick was taken concurrently');
}

function ipTaken(ip: string, requested: readonly string[]): FieldError {
  return { type: 'FieldValueInvalid', field: 'spec.clusterIPs', badValue: goStringsValue(requested), detail: `failed to allocate IP ${ip}: provided IP is already allocated` };
}

function ipNotInRange(ip: string, requested: readonly string[]): FieldError {
  return {
    type: 'FieldValueInvalid',
    field: 'spec.clusterIPs',
    badValue: goStringsValue(requested),
    detail: `failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`,
  };
}

function allocateIPs(obj: KubeObject, heldElsewhere: (value: string | number) => boolean, blocked: Blocked, hold: Hold): void {
  const spec = ensureObj(obj, 'spec');
  const requested = clusterIPsOf(obj);
  const used = { has: (ip: string) => blocked.ips.has(ip) || heldElsewhere(ip) };
  if (requested.length === 0) {
    const ip = allocateClusterIP(used);
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
    hold({ key: ipClaimKey(ip), value: ip, requested: false, refusal: ipTaken(ip, [ip]) });
    return;
  }
  // Headless services hold nothing; an address outside the range is refused as the allocator refuses it (malformed
  // ones never get here: initIPFamilyFields refused them).
  const ip = requested[0];
  if (ip === 'None') return;
  if (!inServiceCIDR(ip)) throw new AllocationRefused(ipNotInRange(ip, requested));
  if (used.has(ip)) throw new AllocationRefused(ipTaken(ip, requested));
  hold({ key: ipClaimKey(ip), value: ip, requested: true, refusal: ipTaken(ip, requested) });
}

function allocatePorts(obj: KubeObject, old: KubeObject | undefined, heldElsewhere: (value: string | number) => boolean, blocked: Blocked, hold: Hold): void {
  const spec = ensureObj(obj, 'spec');
  const mine = new Set(old ? nodePortsOf(old) : []);
  const chosen = new Set<number>(blocked.ports);
  const used = { has: (port: number) => chosen.has(port) || heldElsewhere(port), add: (port: number) => void chosen.add(port) };
  const taken = (port: number, field: string): FieldError => ({ type: 'FieldValueInvalid', field, badValue: port, detail: 'provided port is already allocated' });
  const picked = (port: number, field: string, requested: boolean) => hold({ key: portClaimKey(port), value: port, requested, refusal: taken(port, field) });
  const take = (port: number, field: string): void => {
    if (mine.has(port)) return;
    const inRange = port >= NODE_PORT_RANGE.base && port < NODE_PORT_RANGE.base + NODE_PORT_RANGE.size;
    if (!inRange) {
      throw new AllocationRefused({ type: 'FieldValueInvalid', field, badValue: port, detail: `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_RANGE_TEXT}` });
    }
    if (used.has(port)) throw new AllocationRefused(taken(port, field));
    used.add(port);
    picked(port, field, true);
  };
  if (needsNodePorts(obj)) {
    const ports = objsAt(spec, 'ports');
    const num = (v: unknown) => (typeof v === 'number' && v > 0 ? v : 0);
    // Ports of one service port number (e.g. 53/TCP and 53/UDP) share their node port, as in kube.
    const byServicePort = new Map<number, number>();
    ports.forEach((p: Obj, i) => {
      const np = num(p.nodePort);
      if (np === 0) return;
      const shared = byServicePort.get(num(p.port));
      if (shared !== np) take(np, `spec.ports[${i}].nodePort`);
      if (shared === undefined) byServicePort.set(num(p.port), np);
    });
    // Ports left empty on update keep their old values (the strategy restores them); only new ones are allocated.
    const oldByName = new Map(objsAt(old ?? { metadata: {} }, 'spec', 'ports').map((p) => [strAt(p, 'name'), num(p.nodePort)]));
    for (const [i, p] of ports.entries()) {
      if (num(p.nodePort) > 0) continue;
      if (old && needsNodePorts(old) && (oldByName.get(strAt(p, 'name')) ?? 0) > 0) continue;
      const shared = byServicePort.get(num(p.port));
      if (shared !== undefined) {
        p.nodePort = shared;
        continue;
      }
      const port = allocateNodePort(used);
      p.nodePort = port;
      used.add(port);
      byServicePort.set(num(p.port), port);
      picked(port, `spec.ports[${i}].nodePort`, false);
    }
  }
  if (needsHealthCheckPort(obj)) {
    const hc = spec.healthCheckNodePort;
    if (typeof hc === 'number' && hc > 0) take(hc, 'spec.healthCheckNodePort');
    else if (!(old && needsHealthCheckPort(old) && typeof objAt(old, 'spec')?.healthCheckNodePort === 'number')) {
      const port = allocateNodePort(used);
      used.add(port);
      spec.healthCheckNodePort = port;
      picked(port, 'spec.healthCheckNodePort', false);
    }
  }
}
