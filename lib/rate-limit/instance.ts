/** The counter store of this function, built once from its configuration. */
import { env, tableName } from '../config.js';
import { documentClient } from '../dynamo/client.js';
import { counterStore } from './counter-store.js';

export const counters = counterStore(documentClient, tableName('COUNTERS_TABLE'), { banSeconds: env.BAN_SECONDS });
