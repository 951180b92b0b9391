/**
 * The `wafAllowedAddresses` setting: CIDR blocks of Enterprise customers the web ACL's per-address rule does not count;
 * a list in cdk.json, comma-separated on the command line (-c values are strings).
 */
import * as v from 'valibot';

const IPV4_CIDR = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}\/(3[0-2]|[12]?\d)$/;
const IPV6_CIDR = /^[0-9a-f:]*:[0-9a-f:]*\/(12[0-8]|1[01]\d|[1-9]?\d)$/i;
const isCidr = (text: string) => IPV4_CIDR.test(text) || IPV6_CIDR.test(text);

const commaSeparated = v.pipe(
  v.string(),
  v.transform((text) => text.split(',').map((part) => part.trim())),
);

export const AddressListSchema = v.pipe(
  v.union([v.array(v.string()), commaSeparated], 'must be a list of CIDR blocks'),
  v.check((list) => list.every(isCidr), 'must be a list of CIDR blocks such as 203.0.113.0/24 or 2001:db8::/56'),
);
