/**
 * Where a webhook may send: http(s) URLs whose host resolves only to public unicast
 * addresses, unless the operator's allow-list (`WEBHOOK_ALLOW_HOSTS`) names the host, one of
 * its addresses, or a range holding it. Checked at create and again before every attempt,
 * on the addresses the attempt then connects to (see `webhook_sender.ts`).
 */
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** The parsed `WEBHOOK_ALLOW_HOSTS`. */
export interface AllowList {
  /** `*`: every target is allowed. */
  all: boolean;
  /** Host names allowed whatever they resolve to (lower case, no trailing dot). */
  hosts: Set<string>;
  /** Address ranges allowed (a bare address is a range of one). */
  ranges: Array<[Address, number]>;
}

/** An allow-list that allows nothing beyond public addresses (the default). */
export const NO_EXCEPTIONS: AllowList = { all: false, hosts: new Set(), ranges: [] };

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * Parses a comma-separated list of host names, addresses and CIDR ranges (or `*`); throws
 * an `Error` naming the first entry that is none of these.
 */
export function parseAllowList(raw: string): AllowList {
  const list: AllowList = { all: false, hosts: new Set(), ranges: [] };
  for (const part of raw.split(",")) {
    const entry = part.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1");
    if (entry === "") continue;
    if (entry === "*") {
      list.all = true;
    } else if (entry.includes("/")) {
      try {
        list.ranges.push(ipaddr.parseCIDR(entry));
      } catch {
        throw new Error(`${JSON.stringify(part.trim())} is not a valid CIDR range`);
      }
    } else if (isAddressText(entry)) {
      const address = unmapped(ipaddr.parse(entry));
      list.ranges.push([address, address.kind() === "ipv4" ? 32 : 128]);
    } else if (HOST_NAME.test(entry.replace(/\.$/, ""))) {
      list.hosts.add(entry.replace(/\.$/, ""));
    } else {
      throw new Error(`${JSON.stringify(part.trim())} is not a host name, address or CIDR range`);
    }
  }
  return list;
}

/** Whether `text` is an IPv4 address in dotted-quad form or an IPv6 address. */
function isAddressText(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text);
}

function isMapped(address: Address): boolean {
  return address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress();
}

/** An IPv4-mapped IPv6 address as the IPv4 address it is; others unchanged. */
function unmapped(address: Address): Address {
  return isMapped(address) ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

/** The deprecated IPv4-compatible range ::/96, which the library counts as unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");

/**
 * Whether `address` is an ordinary public unicast address: not loopback, private, shared
 * (100.64/10), link-local, unspecified, multicast, broadcast, reserved or documentation, and
 * not an IPv6 form that embeds or tunnels to an IPv4 address (6to4, Teredo, NAT64).
 */
export function isPublicAddress(text: string): boolean {
  const address = unmapped(ipaddr.parse(text));
  if (address.range() !== "unicast") return false;
  return !(address.kind() === "ipv6" && address.match(IPV4_COMPATIBLE));
}

/** Whether a range of the list holds `address` (an IPv4 address also in its mapped form). */
function allowedByRange(address: Address, list: AllowList): boolean {
  const forms = address.kind() === "ipv4"
    ? [address, (address as ipaddr.IPv4).toIPv4MappedAddress()]
    : [address];
  return list.ranges.some(([base, bits]) =>
    forms.some((form) => form.kind() === base.kind() && form.match(base, bits))
  );
}

/** Resolves a host name to its addresses (A and AAAA); an empty list when it has none. */
export type Resolver = (hostname: string, signal?: AbortSignal) => Promise<string[]>;

/** The system's resolver, through `Deno.resolveDns`. */
export const dnsResolver: Resolver = async (hostname, signal) => {
  const lookup = async (type: "A" | "AAAA") => {
    try {
      return await Deno.resolveDns(hostname, type, signal ? { signal } : {});
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return [];
      throw error;
    }
  };
  const [v4, v6] = await Promise.all([lookup("A"), lookup("AAAA")]);
  return [...v4, ...v6];
};

/** The outcome of checking a target. */
export type TargetCheck =
  | { ok: true; addresses: string[] }
  | { ok: false; reason: "unresolvable" }
  | { ok: false; reason: "blocked"; address: string };

/** A URL's host without IPv6 brackets or a trailing dot, in lower case. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase();
}

/**
 * Resolves `url`'s host (an address stands for itself) and checks every address it gives:
 * all must be public or allowed. An allowed host name skips the address check.
 */
export async function checkTarget(
  url: URL,
  options: { allow: AllowList; resolve: Resolver; signal?: AbortSignal },
): Promise<TargetCheck> {
  const host = hostOf(url);
  const literal = isAddressText(host);
  const addresses = literal ? [host] : await options.resolve(host, options.signal);
  if (addresses.length === 0) return { ok: false, reason: "unresolvable" };
  if (options.allow.all || (!literal && options.allow.hosts.has(host))) {
    return { ok: true, addresses };
  }
  for (const text of addresses) {
    if (isPublicAddress(text)) continue;
    if (allowedByRange(unmapped(ipaddr.parse(text)), options.allow)) continue;
    return { ok: false, reason: "blocked", address: text };
  }
  return { ok: true, addresses };
}

/** An allow-list written back as `WEBHOOK_ALLOW_HOSTS` text (`parseAllowList` reads it). */
export function allowListText(list: AllowList): string {
  if (list.all) return "*";
  return [
    ...list.hosts,
    ...list.ranges.map(([address, bits]) => `${address.toString()}/${bits}`),
  ].join(",");
}
