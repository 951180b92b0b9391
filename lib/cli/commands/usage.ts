/** `usage`: a customer's requests per UTC day, windows and ban; or with `--month` every customer's, a bill's basis. Spends no quota. */
import { limitsOf } from '../../auth/records.js';
import { nowMs } from '../../clock.js';
import { DAY_SECONDS, dateOf, dayStartOf, parseMonth } from '../../usage/days.js';
import { CustomerIdSchema, parseDay, parseMonthFlag, parseWith, UsageError } from '../args.js';
import { type Action, defineCommand } from '../command.js';
import { existingCustomer, INCLUDE_VERIFY, withoutVerify } from '../stores.js';

/** Without --from: the last 30 days up to --to (or today), but none before the customer existed. */
const DEFAULT_DAYS = 30;
const MAX_DAYS = 3_660;

export const usage = defineCommand({
  name: 'usage',
  synopsis: `<customerId> [--from YYYY-MM-DD] [--to YYYY-MM-DD] | usage --month YYYY-MM [--csv] [--${INCLUDE_VERIFY}]`,
  positionals: [0, 1],
  writes: false,
  flags: { from: 'string', to: 'string', month: 'string', csv: 'boolean', [INCLUDE_VERIFY]: 'boolean' },
  prepare({ args, flags, stage, json }) {
    const today = dayStartOf(Math.floor(nowMs() / 1000));
    if (args[0] === undefined) {
      if (flags.month === undefined) throw new UsageError('"usage" needs a customerId, or --month YYYY-MM for every customer');
      if (flags.from !== undefined || flags.to !== undefined)
        throw new UsageError('--from and --to are for one customer: usage <customerId> --from … --to …');
      return monthReport(flags.month, { csv: flags.csv === true, json, includeVerify: flags[INCLUDE_VERIFY] === true }, today, stage);
    }
    if (flags.month !== undefined || flags.csv || flags[INCLUDE_VERIFY]) {
      throw new UsageError(
        `--month, --csv and --${INCLUDE_VERIFY} give every customer's month: leave out the customerId, or use --from and --to`,
      );
    }
    const customerId = parseWith(CustomerIdSchema, args[0], 'customerId');
    const to = parseDay(flags.to, '--to');
    const fromFlag = parseDay(flags.from, '--from');
    const from = fromFlag ?? (to ?? today) - (DEFAULT_DAYS - 1) * DAY_SECONDS;
    const last = Math.min(to ?? today, today);
    if (from > today) {
      // Without --from, the days shown are the 30 up to --to, here all after today: it is --to that is wrong.
      throw new UsageError(
        flags.from === undefined
          ? `--to ${dateOf(to ?? today)} is after today (${dateOf(today)}), and so are the ${DEFAULT_DAYS} days up to it: give an earlier --to, or --from`
          : `--from ${dateOf(from)} is after today (${dateOf(today)})`,
      );
    }
    if (to !== undefined && from > to) throw new UsageError(`--from ${dateOf(from)} is after --to ${dateOf(to)}`);
    if ((last - from) / DAY_SECONDS + 1 > MAX_DAYS) throw new UsageError(`--from and --to span more than ${MAX_DAYS} days`);
    return customerDays(customerId, { first: from, sinceCreated: fromFlag === undefined }, last, stage);
  },
});

function customerDays(customerId: string, range: { first: number; sinceCreated: boolean }, last: number, stage: string): Action {
  return async ({ auth, counters, deprecatedCalls: calls, usage: history }) => {
    const customer = await existingCustomer(auth, customerId, stage);
    const createdMs = Date.parse(customer.createdAt);
    const created = range.sinceCreated && !Number.isNaN(createdMs) ? dayStartOf(Math.floor(createdMs / 1000)) : undefined;
    // A customer created after --to has no day in the range: no rows, from its first day.
    const first = created === undefined ? range.first : Math.max(range.first, created);
    const limits = limitsOf(customer);
    const now = nowMs();
    const [snapshot, deprecatedCalls, days] = await Promise.all([
      counters.peek(customerId, limits, now),
      calls.read(customerId),
      history.days(customerId, first, last),
    ]);
    const { minute, day } = snapshot.windows;
    const iso = (s: number) => new Date(s * 1000).toISOString();
    const deprecated = Object.entries(deprecatedCalls);
    const total = { admitted: days.reduce((s, d) => s + d.admitted, 0), refused: days.reduce((s, d) => s + d.refused, 0) };
    return {
      json: {
        customerId,
        plan: customer.plan,
        minute: { limit: minute.limit, used: minute.limit - minute.remaining, remaining: minute.remaining, reset: minute.reset },
        day: { limit: day.limit, used: day.limit - day.remaining, remaining: day.remaining, reset: day.reset },
        ban: { active: snapshot.banUntil !== null, until: snapshot.banUntil },
        deprecatedCalls,
        from: dateOf(first),
        to: dateOf(last),
        days,
        total,
      },
      text: [
        `customer ${customerId} (${customer.plan}, ${stage})`,
        `  minute: ${minute.limit - minute.remaining}/${minute.limit} used, resets ${iso(minute.reset)}`,
        `  day:    ${day.limit - day.remaining}/${day.limit} used, resets ${iso(day.reset)}`,
        `  ban:    ${snapshot.banUntil ? `until ${iso(snapshot.banUntil)}` : 'none'}`,
        `  deprecated operations: ${deprecated.length ? deprecated.map(([op, c]) => `${op} ${c.count} calls, last ${c.last}`).join('; ') : 'none called'}`,
        '',
        `${'DAY'.padEnd(10)}  ${'ADMITTED'.padStart(10)}  ${'REFUSED'.padStart(10)}`,
        ...days.map((d) => `${d.date}  ${String(d.admitted).padStart(10)}  ${String(d.refused).padStart(10)}`),
        `${'total'.padEnd(10)}  ${String(total.admitted).padStart(10)}  ${String(total.refused).padStart(10)}`,
      ].join('\n'),
    };
  };
}

const csvField = (value: string | number) => (/[",\n]/.test(String(value)) ? `"${String(value).replaceAll('"', '""')}"` : String(value));

function monthReport(
  monthFlag: string,
  { csv, json, includeVerify }: { csv: boolean; json: boolean; includeVerify: boolean },
  today: number,
  stage: string,
): Action {
  const month = parseMonthFlag(monthFlag, '--month') ?? monthFlag;
  const range = parseMonth(month);
  if (!range || range.first > today) throw new UsageError(`--month ${month} has not started yet`);
  if (csv && json) throw new UsageError('give --csv or --json, not both');
  return async ({ auth, usage: history }) => {
    // The temporary customers of verify runs are not billed: left out unless asked for, and counted in a note.
    const { shown: customers, note } = withoutVerify(await auth.listCustomers(), includeVerify);
    const totals = await history.month(
      customers.map((c) => c.customerId),
      month,
    );
    const rows = totals.map(({ customerId, ...counts }, i) => ({ month, customerId, plan: customers[i]?.plan ?? '', ...counts }));
    const total = { admitted: rows.reduce((s, r) => s + r.admitted, 0), refused: rows.reduce((s, r) => s + r.refused, 0) };
    const complete = range.last < today;
    const columns = ['month', 'customerId', 'plan', 'admitted', 'refused', 'activeDays'] as const;
    const text = csv
      ? [columns.join(','), ...rows.map((r) => columns.map((c) => csvField(r[c])).join(','))].join('\n')
      : [
          `requests in ${month} (${stage}, UTC days${complete ? '' : `, month not over: up to today, ${dateOf(today)}`})`,
          `${'CUSTOMER'.padEnd(24)}  ${'PLAN'.padEnd(10)}  ${'ADMITTED'.padStart(12)}  ${'REFUSED'.padStart(10)}  DAYS`,
          ...rows.map(
            (r) =>
              `${r.customerId.padEnd(24)}  ${r.plan.padEnd(10)}  ${String(r.admitted).padStart(12)}  ${String(r.refused).padStart(10)}  ${r.activeDays}`,
          ),
          `${'total'.padEnd(24)}  ${''.padEnd(10)}  ${String(total.admitted).padStart(12)}  ${String(total.refused).padStart(10)}`,
        ].join('\n');
    return { json: { month, stage, complete, customers: rows.map(({ month: _m, ...r }) => r), total }, text, note };
  };
}
