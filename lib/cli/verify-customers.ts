/** `--include-verify` of the listings that leave out `verify`'s temporary customers, and the note counting them. */
import { type Customer, isVerifyCustomer } from '../auth/records.js';

export const INCLUDE_VERIFY = 'include-verify';

export function withoutVerify<C extends Pick<Customer, 'purpose'>>(customers: readonly C[], include: boolean) {
  const shown = include ? [...customers] : customers.filter((c) => !isVerifyCustomer(c));
  const leftOut = customers.length - shown.length;
  const note = leftOut
    ? `${leftOut} temporary ${leftOut === 1 ? 'customer' : 'customers'} of verify runs left out (--include-verify to show them)`
    : undefined;
  return { shown, note };
}
